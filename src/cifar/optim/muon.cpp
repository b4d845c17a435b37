// muon.cpp: Newton-Schulz orthogonalisation and the Muon step, op for op as
// airbench94_muon.py writes them.
#include "cifar/optim/muon.h"

#include <fmt/format.h>

#include <cmath>
#include "cifar/optim/momentum_state.h"

namespace cifar {

torch::Tensor newton_schulz(const torch::Tensor& g, int64_t steps, double eps,
                            c10::ScalarType dtype) {
  TORCH_CHECK(g.dim() == 2, "Newton-Schulz needs a matrix, got shape ", g.sizes());
  TORCH_CHECK(steps >= 0, "Newton-Schulz steps must be >= 0, got ", steps);
  constexpr double a = 3.4445, b = -4.7750, c = 2.0315;
  auto x = g.to(dtype);
  x = x / (x.norm() + eps);  // the top singular value is now <= 1
  const bool tall = g.size(0) > g.size(1);
  if (tall) x = x.t();
  for (int64_t i = 0; i < steps; ++i) {
    const auto A = x.matmul(x.t());
    const auto B = A * b + (A * c).matmul(A);  // the reference's b * A + c * A @ A
    x = x * a + B.matmul(x);
  }
  if (tall) x = x.t();
  return x;
}

Muon::Muon(std::vector<torch::Tensor> params, MuonOptions options)
    : params_(std::move(params)), options_(options) {
  TORCH_CHECK(options_.momentum() >= 0, "momentum must be >= 0, got ", options_.momentum());
  TORCH_CHECK(!options_.nesterov() || options_.momentum() > 0,
              "Nesterov momentum needs a momentum > 0");
  TORCH_CHECK(options_.ns_steps() >= 1, "Newton-Schulz steps must be >= 1, got ",
              options_.ns_steps());
  momentum_.reserve(params_.size());
  for (size_t i = 0; i < params_.size(); ++i) {
    const auto& p = params_[i];
    TORCH_CHECK(p.dim() >= 2 && p.is_floating_point(),
                "Muon updates float matrices and filters: parameter ", i, " has shape ", p.sizes(),
                " and type ", p.scalar_type());
    momentum_.push_back(torch::zeros_like(p));
  }
}

void Muon::zero_grad() {
  for (auto& p : params_) p.mutable_grad().reset();
}

void Muon::step(double lr) {
  TORCH_CHECK(lr >= 0, "learning rate must be >= 0, got ", lr);
  update([lr](torch::Tensor& p, const torch::Tensor& u) {
    p.add_(u, -lr);  // an ns_dtype update, added in p's type, as the reference does
  });
}

// p -= lr * u in p's type (a bf16 product would round the step); lr * u is
// rounded before the subtraction, where step(double) fuses the two as the
// reference does: the same bits when lr is a power of 2.
void Muon::device_rate_step(const torch::Tensor& lr) {
  update([&lr](torch::Tensor& p, const torch::Tensor& u) { p.sub_(u.to(p.scalar_type()) * lr); });
}

void Muon::update(const std::function<void(torch::Tensor&, const torch::Tensor&)>& descend) {
  torch::NoGradGuard no_grad;
  const double m = options_.momentum();
  for (size_t i = 0; i < params_.size(); ++i) {
    auto& p = params_[i];
    const auto& grad = p.grad();
    if (!grad.defined()) continue;
    auto& buf = momentum_[i];
    buf.mul_(m).add_(grad);
    const auto d = options_.nesterov() ? grad.add(buf, m) : buf;
    const int64_t rows = p.size(0);
    // sqrt(rows) / ||p||, written as Python computes `float / tensor`.
    p.mul_(p.norm().reciprocal() * std::sqrt(static_cast<double>(rows)));
    const auto u =
        newton_schulz(d.reshape({rows, -1}), options_.ns_steps(), 1e-7, options_.ns_dtype());
    descend(p, u.reshape(p.sizes()));
  }
}

void Muon::save(torch::serialize::OutputArchive& archive) const {
  save_momentum(archive, momentum_);
}

void Muon::load(torch::serialize::InputArchive& archive) {
  load_momentum(archive, momentum_);
}

}  // namespace cifar
