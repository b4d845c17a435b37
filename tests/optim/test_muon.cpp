// test_muon.cpp: Newton-Schulz orthogonalisation and the Muon step against
// hand computations, and the optimiser state through an archive.
#include <catch2/catch.hpp>

#include <cmath>
#include <sstream>

#include "cifar/optim/muon.h"

using namespace cifar;

namespace {

// The same quintic applied to the singular values of G / ||G|| in double:
// X = U p(p(p(S))) V^T with p(s) = a s + b s^3 + c s^5, what the iteration
// computes exactly (without bfloat16 rounding).
torch::Tensor newton_schulz_by_svd(const torch::Tensor& g, int64_t steps) {
  const auto x = g.to(torch::kDouble) / g.to(torch::kDouble).norm();
  auto [u, s, vh] = torch::linalg_svd(x, /*full_matrices=*/false);
  for (int64_t i = 0; i < steps; ++i) s = 3.4445 * s - 4.7750 * s.pow(3) + 2.0315 * s.pow(5);
  return u.matmul(torch::diag(s)).matmul(vh);
}

double relative_error(const torch::Tensor& got, const torch::Tensor& want) {
  return ((got.to(torch::kDouble) - want).norm() / want.norm()).item<double>();
}

// The Muon update of one parameter, written out (momentum m, Nesterov).
torch::Tensor muon_by_hand(const torch::Tensor& p, const torch::Tensor& direction, double lr) {
  const int64_t rows = p.size(0);
  const auto normalised = p * std::sqrt(static_cast<double>(rows)) / p.norm();
  const auto update = newton_schulz(direction.reshape({rows, -1})).to(p.dtype());
  return normalised - lr * update.reshape(p.sizes());
}

void set_grad(torch::Tensor& p, const torch::Tensor& g) {
  p.mutable_grad() = g.clone();
}

}  // namespace

TEST_CASE("Newton-Schulz makes the singular values about one, in float32 or bf16", "[muon]") {
  torch::manual_seed(0);
  for (const auto dtype : {torch::kFloat, torch::kBFloat16}) {
    for (const auto& shape : {std::vector<int64_t>{64, 576}, std::vector<int64_t>{256, 64},
                              std::vector<int64_t>{64, 216}}) {
      INFO("shape " << shape[0] << "x" << shape[1] << ", " << dtype);
      const auto g = torch::randn(shape);
      const auto before = g.clone();
      const auto x = newton_schulz(g, 3, 1e-7, dtype);
      REQUIRE(x.sizes() == g.sizes());
      CHECK(x.scalar_type() == dtype);
      CHECK(torch::equal(g, before));  // the input is not modified
      const auto s = torch::linalg_svdvals(x.to(torch::kFloat));
      // The reference's claim: roughly Uniform(0.5, 1.5); for Gaussian
      // matrices 0.67 to 1.21 (measured with the reference in Python).
      CHECK(s.min().item<double>() > 0.5);
      CHECK(s.max().item<double>() < 1.5);
      // The same polynomial on the exact singular values, up to the type's rounding.
      const double tolerance = dtype == torch::kFloat ? 1e-4 : 0.03;
      CHECK(relative_error(x, newton_schulz_by_svd(g, 3)) < tolerance);
      // Without iterations it is G / ||G||: far from orthogonal.
      CHECK(torch::linalg_svdvals(newton_schulz(g, 0, 1e-7, dtype).to(torch::kFloat))
                .max()
                .item<double>() < 0.2);
    }
  }
  CHECK(newton_schulz(torch::randn({8, 8})).scalar_type() == torch::kFloat);  // the default
  // More steps follow the same polynomial.
  const auto g = torch::randn({32, 48});
  CHECK(relative_error(newton_schulz(g, 5), newton_schulz_by_svd(g, 5)) < 0.05);
  CHECK_THROWS_WITH(newton_schulz(torch::randn({2, 3, 4})), Catch::Contains("matrix"));
}

TEST_CASE("a Muon step is momentum, weight normalisation and Newton-Schulz", "[muon]") {
  torch::manual_seed(1);
  const double m = 0.6, lr = 0.24;
  auto p = torch::randn({3, 2, 1, 2}).requires_grad_();  // 3 rows of 4
  auto idle = torch::randn({2, 2}).requires_grad_();     // never gets a gradient
  const auto idle_before = idle.detach().clone();
  const auto g1 = torch::randn({3, 2, 1, 2});
  const auto g2 = torch::randn({3, 2, 1, 2});
  Muon muon({p, idle}, MuonOptions().momentum(m).nesterov(true));

  auto expected = p.detach().clone();
  set_grad(p, g1);
  muon.step(lr);
  auto buf = g1.clone();  // 0 * m + g1
  expected = muon_by_hand(expected, g1.add(buf, m), lr);
  CHECK(torch::allclose(p, expected, 1e-6, 1e-7));

  set_grad(p, g2);
  muon.step(lr);
  buf = buf * m + g2;
  expected = muon_by_hand(expected, g2.add(buf, m), lr);
  CHECK(torch::allclose(p, expected, 1e-6, 1e-7));
  CHECK(torch::equal(idle, idle_before));  // no gradient: not even renormalised

  // lr 0 leaves the weight renormalised to norm sqrt(rows).
  set_grad(p, g1);
  muon.step(0.0);
  CHECK(p.norm().item<double>() == Approx(std::sqrt(3.0)).epsilon(1e-6));

  muon.zero_grad();
  CHECK_FALSE(p.grad().defined());
}

TEST_CASE("Muon without Nesterov steps along the momentum buffer", "[muon]") {
  torch::manual_seed(2);
  auto p = torch::randn({4, 6}).requires_grad_();
  const auto g1 = torch::randn({4, 6});
  const auto g2 = torch::randn({4, 6});
  Muon muon({p}, MuonOptions().momentum(0.9).nesterov(false));
  auto expected = p.detach().clone();
  set_grad(p, g1);
  muon.step(0.1);
  expected = muon_by_hand(expected, g1, 0.1);
  set_grad(p, g2);
  muon.step(0.1);
  expected = muon_by_hand(expected, g1 * 0.9 + g2, 0.1);
  CHECK(torch::allclose(p, expected, 1e-6, 1e-7));
}

TEST_CASE("Muon's Newton-Schulz runs in the type its options name", "[muon]") {
  torch::manual_seed(3);
  const auto start = torch::randn({16, 3, 3, 3});
  const auto g = torch::randn({16, 3, 3, 3});
  auto step_in = [&](torch::ScalarType dtype) {
    auto p = start.clone().requires_grad_();
    Muon muon({p}, MuonOptions().momentum(0.6).nesterov(false).ns_dtype(dtype));
    set_grad(p, g);
    muon.step(0.1);
    return p.detach();
  };
  const auto normalised = start * std::sqrt(16.0) / start.norm();
  for (const auto dtype : {torch::kFloat, torch::kBFloat16}) {
    INFO(dtype);
    const auto update = newton_schulz(g.reshape({16, -1}), 3, 1e-7, dtype).to(torch::kFloat);
    CHECK(
        torch::allclose(step_in(dtype), normalised - 0.1 * update.reshape(g.sizes()), 1e-6, 1e-7));
  }
  CHECK_FALSE(torch::allclose(step_in(torch::kFloat), step_in(torch::kBFloat16), 1e-4, 1e-5));
}

TEST_CASE("Muon checks its options and parameters", "[muon]") {
  auto w = torch::randn({2, 2}).requires_grad_();
  CHECK_THROWS_WITH(Muon({w}, MuonOptions().momentum(0).nesterov(true)),
                    Catch::Contains("Nesterov momentum needs a momentum > 0"));
  CHECK_THROWS_WITH(Muon({w}, MuonOptions().momentum(-1).nesterov(false)),
                    Catch::Contains("momentum must be >= 0"));
  CHECK_THROWS_WITH(Muon({torch::zeros({5}, torch::requires_grad())}),
                    Catch::Contains("parameter 0 has shape [5]"));
  const MuonOptions defaults;
  CHECK(defaults.momentum() == 0.6);
  CHECK(defaults.nesterov());
  CHECK(defaults.ns_steps() == 3);
}

TEST_CASE("Muon's momentum buffers round-trip through an archive", "[muon]") {
  torch::manual_seed(3);
  auto a = torch::randn({4, 3, 3, 3}).requires_grad_();
  auto b = a.detach().clone().requires_grad_();
  auto other = torch::randn({2, 2}).requires_grad_();
  const auto g1 = torch::randn({4, 3, 3, 3});
  const auto g2 = torch::randn({4, 3, 3, 3});
  Muon first({a, other});
  set_grad(a, g1);
  first.step(0.1);
  set_grad(a, g2);
  first.step(0.1);

  torch::serialize::OutputArchive out;
  first.save(out);
  std::stringstream bytes;
  out.save_to(bytes);

  // The archive holds the buffers by index, as Sgd's: a's is 0.6 g1 + g2,
  // other's still zeros.
  torch::serialize::InputArchive in;
  in.load_from(bytes);
  torch::Tensor saved;
  in.read("momentum.0", saved, /*is_buffer=*/true);
  CHECK(torch::allclose(saved, g1 * 0.6 + g2));
  in.read("momentum.1", saved, /*is_buffer=*/true);
  CHECK(torch::equal(saved, torch::zeros({2, 2})));

  // A fresh optimiser over the same weights, loaded, takes the same next step.
  {
    torch::NoGradGuard no_grad;
    b.copy_(a);
  }
  auto other_b = other.detach().clone().requires_grad_();
  Muon second({b, other_b});
  bytes.seekg(0);
  torch::serialize::InputArchive again;
  again.load_from(bytes);
  second.load(again);
  const auto g3 = torch::randn({4, 3, 3, 3});
  set_grad(a, g3);
  first.step(0.1);
  set_grad(b, g3);
  second.step(0.1);
  CHECK(torch::equal(a, b));

  // State for other shapes is refused, naming the parameter.
  auto wrong = torch::randn({4, 27}).requires_grad_();
  Muon third({wrong, other});
  bytes.seekg(0);
  torch::serialize::InputArchive third_in;
  third_in.load_from(bytes);
  CHECK_THROWS_WITH(third.load(third_in),
                    Catch::Contains("optimizer state for parameter 0 has shape [4, 3, 3, 3], "
                                    "expected [4, 27]"));
}
