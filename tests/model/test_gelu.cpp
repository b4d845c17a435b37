// test_gelu.cpp: the table GELU against torch::gelu, bit for bit, forward
// and backward: on every bf16 value, in both layouts, with gradients in
// another layout, and the fallback for what the tables do not cover.
#include <catch2/catch.hpp>

#include <limits>

#include "cifar/model/gelu.h"
#include "forward_backward.h"

using namespace cifar;

namespace {

test::OutAndGrad run(const torch::Tensor& input, const torch::Tensor& grad_out, bool tabled) {
  return test::forward_backward(
      [&](const torch::Tensor& x) { return tabled ? cifar::gelu(x) : torch::gelu(x); }, input,
      grad_out);
}

// How many bf16 steps apart got and want are, element by element (0 where
// both are NaN); both must have the same shape, dtype and strides.
torch::Tensor steps_apart(const torch::Tensor& got, const torch::Tensor& want) {
  REQUIRE(got.sizes() == want.sizes());
  REQUIRE(got.strides() == want.strides());
  REQUIRE(got.scalar_type() == torch::kBFloat16);
  REQUIRE(want.scalar_type() == torch::kBFloat16);
  const auto both_nan = got.isnan() & want.isnan();
  const auto steps =
      (got.view(torch::kInt16).to(torch::kInt32) - want.view(torch::kInt16).to(torch::kInt32))
          .abs();
  return steps.masked_fill(both_nan, 0);
}

// Bit for bit, forward and backward, where ATen runs its vectorised kernel
// over the whole tensor (below one thread's grain, a size that is a multiple
// of 64 leaves it no scalar tail), but for subnormal gradients: one step.
// Where the gradient's layout differs from x's, ATen's backward runs scalar
// code: one step (loose).
void check_against_libtorch(const torch::Tensor& x, const torch::Tensor& grad_out,
                            bool loose = false) {
  REQUIRE(gelu_is_tabled(x));
  const auto got = run(x, grad_out, true);
  const auto want = run(x, grad_out, false);
  CHECK(steps_apart(got.out, want.out).max().item<int>() == 0);
  const auto grad_steps = steps_apart(got.grad, want.grad);
  const auto subnormal = want.grad.to(torch::kFloat).abs() < std::numeric_limits<float>::min();
  if (!loose) CHECK(grad_steps.masked_fill(subnormal, 0).max().item<int>() == 0);
  CHECK(grad_steps.max().item<int>() <= 1);
}

}  // namespace

TEST_CASE("gelu matches torch::gelu on every bf16 value forward and backward", "[gelu]") {
  torch::manual_seed(5);
  // All 65,536 bit patterns (zeros, subnormals, infinities, NaNs, the lot)
  // in a transposed layout, which ATen runs through its own kernel.
  const auto x = torch::arange(int64_t{1} << 16, torch::kInt32)
                     .to(torch::kInt16)
                     .view(torch::kBFloat16)
                     .view({256, 256})
                     .t();
  SECTION("gradient of one") {
    check_against_libtorch(x, torch::ones_like(x));
  }
  SECTION("random gradients") {
    check_against_libtorch(x, torch::randn({256, 256}).mul(100).to(torch::kBFloat16));
  }
  SECTION("tiny and huge gradients") {
    const auto scale = torch::pow(2.0, torch::randint(-130, 120, {256, 256}));
    check_against_libtorch(x, (torch::randn({256, 256}) * scale).to(torch::kBFloat16));
  }
}

TEST_CASE("gelu keeps the layout of channels-last and permuted inputs", "[gelu]") {
  torch::manual_seed(6);
  const auto x = torch::randn({4, 8, 4, 6}).mul(3).to(torch::kBFloat16);  // 768 = 12 x 64
  const auto cl = x.contiguous(torch::MemoryFormat::ChannelsLast);
  const auto dy = torch::randn({4, 8, 4, 6}).to(torch::kBFloat16);
  SECTION("channels-last input and gradient") {
    check_against_libtorch(cl, dy.contiguous(torch::MemoryFormat::ChannelsLast));
  }
  SECTION("channels-last input with a contiguous gradient") {
    check_against_libtorch(cl, dy, /*loose=*/true);
  }
  SECTION("permuted input with an expanded gradient") {
    check_against_libtorch(x.permute({3, 1, 0, 2}),
                           torch::randn({1, 8, 1, 1}).to(torch::kBFloat16).expand({6, 8, 4, 4}),
                           /*loose=*/true);
  }
  SECTION("float gradient") {
    check_against_libtorch(cl, dy.to(torch::kFloat), /*loose=*/true);
  }
}

TEST_CASE("gelu stays within a step of LibTorch on sizes with a scalar tail", "[gelu]") {
  // 945 elements: ATen's vectorised loop leaves the last 49 to scalar code.
  torch::manual_seed(8);
  const auto cl = torch::MemoryFormat::ChannelsLast;
  const auto x = torch::randn({3, 5, 7, 9}).mul(3).to(torch::kBFloat16).contiguous(cl);
  const auto dy = torch::randn({3, 5, 7, 9}).to(torch::kBFloat16).contiguous(cl);
  REQUIRE(gelu_is_tabled(x));
  const auto got = run(x, dy, true);
  const auto want = run(x, dy, false);
  CHECK(steps_apart(got.out, want.out).max().item<int>() <= 1);
  CHECK(steps_apart(got.grad, want.grad).max().item<int>() <= 1);
  // Where ATen vectorises (the first 896 in memory order), bit for bit.
  const auto head = [](const torch::Tensor& t) {
    return t.permute({0, 2, 3, 1}).reshape({-1}).slice(0, 0, 896);
  };
  CHECK(torch::equal(head(got.out), head(want.out)));
  CHECK(torch::equal(head(got.grad), head(want.grad)));
}

TEST_CASE("gelu falls back to LibTorch where the tables do not apply", "[gelu]") {
  torch::manual_seed(7);
  const auto x = torch::randn({4, 6, 5, 5});
  const auto bf16 = x.to(torch::kBFloat16);
  CHECK_FALSE(gelu_is_tabled(x));                       // float
  CHECK_FALSE(gelu_is_tabled(bf16));                    // contiguous: ATen calls oneDNN
  CHECK_FALSE(gelu_is_tabled(bf16.slice(1, 0, 6, 2)));  // not dense
  CHECK(gelu_is_tabled(bf16.contiguous(torch::MemoryFormat::ChannelsLast)));
  for (const auto& input : {x, bf16, bf16.slice(1, 0, 6, 2)}) {
    const auto dy = torch::randn(input.sizes()).to(input.scalar_type());
    const auto got = run(input, dy, true);
    const auto want = run(input, dy, false);
    CHECK(torch::equal(got.out, want.out));
    CHECK(torch::equal(got.grad, want.grad));
  }
}

TEST_CASE("gelu refuses a second derivative instead of returning zeros", "[gelu]") {
  const auto x = torch::randn({2, 4}).to(torch::kBFloat16).t().requires_grad_();
  REQUIRE(gelu_is_tabled(x));
  const auto y = cifar::gelu(x).pow(2).sum();
  CHECK_THROWS_WITH(torch::autograd::grad({y}, {x}, {}, /*retain_graph=*/true,
                                          /*create_graph=*/true),
                    Catch::Contains("no second derivative"));
  CHECK(torch::autograd::grad({y}, {x})[0].sizes() == x.sizes());  // first order still works
}
