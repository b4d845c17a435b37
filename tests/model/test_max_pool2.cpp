// test_max_pool2.cpp: the fused 2x2 max-pool, alone and with the ReLU,
// against LibTorch's ops, bit for bit, forward and backward, in both layouts
// and with hard inputs (ties, zeros, negative windows, NaN, -inf, odd sizes).
#include <catch2/catch.hpp>

#include <limits>

#include "cifar/model/max_pool2.h"
#include "cifar/platform/guards.h"

using namespace cifar;

namespace {

struct Result {
  torch::Tensor out, grad;
};

Result reference(const torch::Tensor& input, const torch::Tensor& grad_out, bool relu) {
  auto x = input.detach().clone().requires_grad_();
  auto out = torch::max_pool2d(x, {2, 2}, {2, 2});
  if (relu) out = torch::relu(out);
  out.backward(grad_out);
  return {out.detach(), x.grad()};
}

Result fused(const torch::Tensor& input, const torch::Tensor& grad_out, bool relu) {
  auto x = input.detach().clone().requires_grad_();
  REQUIRE(max_pool2_is_fused(x));
  auto out = relu ? max_pool2_relu(x) : max_pool2(x);
  out.backward(grad_out);
  return {out.detach(), x.grad()};
}

// Equal values, NaN where the reference has NaN, the same layout.
void check_same(const Result& got, const Result& want) {
  REQUIRE(got.out.sizes() == want.out.sizes());
  CHECK(torch::equal(got.out.isnan(), want.out.isnan()));
  CHECK(torch::equal(got.out.nan_to_num(0), want.out.nan_to_num(0)));
  CHECK(torch::equal(got.grad.isnan(), want.grad.isnan()));
  CHECK(torch::equal(got.grad.nan_to_num(0), want.grad.nan_to_num(0)));
  CHECK(got.out.is_contiguous(torch::MemoryFormat::ChannelsLast) ==
        want.out.is_contiguous(torch::MemoryFormat::ChannelsLast));
}

// Few distinct values, so windows hold ties, zeros and all-negative windows.
torch::Tensor hard_input(torch::IntArrayRef sizes) {
  auto x = torch::randint(-3, 4, sizes).to(torch::kFloat) / 2;
  auto flat = x.view(-1);
  const float nan = std::numeric_limits<float>::quiet_NaN();
  const float inf = std::numeric_limits<float>::infinity();
  flat.index_put_({torch::randint(0, flat.numel(), {5})}, nan);
  flat.index_put_({torch::randint(0, flat.numel(), {5})}, -inf);
  return x;
}

}  // namespace

TEST_CASE("max_pool2 and max_pool2_relu match LibTorch bit for bit", "[max_pool2]") {
  torch::manual_seed(3);
  for (const auto& sizes : std::vector<std::vector<int64_t>>{{4, 6, 28, 28},
                                                             {3, 16, 10, 10},
                                                             {2, 5, 7, 9},
                                                             {1, 1, 2, 2},
                                                             {2, 3, 3, 2},
                                                             {2, 8, 31, 31}}) {
    for (const bool channels_last : {false, true}) {
      for (const bool relu : {false, true}) {
        INFO("sizes " << torch::IntArrayRef(sizes) << (channels_last ? " channels-last" : " NCHW")
                      << (relu ? " with ReLU" : ""));
        const auto format =
            channels_last ? torch::MemoryFormat::ChannelsLast : torch::MemoryFormat::Contiguous;
        for (const auto& input : {torch::randn(sizes), hard_input(sizes)}) {
          const auto x = input.contiguous(format);
          auto out_sizes = sizes;
          out_sizes[2] /= 2;
          out_sizes[3] /= 2;
          auto grad_out = torch::randn(out_sizes).contiguous(format);
          check_same(fused(x, grad_out, relu), reference(x, grad_out, relu));
        }
      }
    }
  }
}

TEST_CASE("max_pool2 splits large inputs over threads mid-plane and mid-image", "[max_pool2]") {
  // 61 * 5 * 14 NCHW rows (61 * 14 channels-last) exceed the per-task grain, and
  // two threads split them in the middle of a plane (an image): each thread
  // must find its first row's input from the row number alone.
  const CpuSettingsGuard two_threads(2, torch::globalContext().userEnabledMkldnn());
  torch::manual_seed(6);
  for (const auto format : {torch::MemoryFormat::Contiguous, torch::MemoryFormat::ChannelsLast}) {
    for (const bool relu : {false, true}) {
      const auto x = hard_input({61, 5, 29, 28}).contiguous(format);  // odd H: uneven row spacing
      const auto grad_out = torch::randn({61, 5, 14, 14}).contiguous(format);
      check_same(fused(x, grad_out, relu), reference(x, grad_out, relu));
    }
  }
}

TEST_CASE("max_pool2 keeps bfloat16 and falls back where it does not fuse", "[max_pool2]") {
  torch::manual_seed(4);
  for (const bool relu : {false, true}) {
    // airbench94's first pool under bf16 autocast: channels-last, odd sizes
    const auto x = torch::randn({2, 64, 31, 31})
                       .to(torch::kBFloat16)
                       .contiguous(torch::MemoryFormat::ChannelsLast);
    const auto grad_out = torch::randn({2, 64, 15, 15})
                              .to(torch::kBFloat16)
                              .contiguous(torch::MemoryFormat::ChannelsLast);
    check_same(fused(x, grad_out, relu), reference(x, grad_out, relu));
  }
  const auto strided = torch::randn({2, 4, 8, 16}).slice(3, 0, 16, 2);  // neither layout
  CHECK_FALSE(max_pool2_is_fused(strided));
  CHECK(torch::equal(max_pool2_relu(strided), torch::relu(torch::max_pool2d(strided, 2, 2))));
  CHECK(torch::equal(max_pool2(strided), torch::max_pool2d(strided, 2, 2)));
  CHECK_FALSE(max_pool2_is_fused(torch::randn({4, 8, 8})));  // no batch dimension
  // float8 counts as floating point in ATen, but the kernels are not built for it
  CHECK_FALSE(max_pool2_is_fused(torch::randn({2, 4, 8, 8}).to(torch::kFloat8_e4m3fn)));
}

TEST_CASE("max_pool2 without autograd gives the same values", "[max_pool2]") {
  torch::manual_seed(5);
  const auto x = torch::randn({3, 6, 28, 28});
  torch::NoGradGuard no_grad;
  CHECK(torch::equal(max_pool2_relu(x), torch::relu(torch::max_pool2d(x, 2, 2))));
  CHECK(torch::equal(max_pool2(x), torch::max_pool2d(x, 2, 2)));
}

TEST_CASE("max_pool2 refuses a second derivative instead of returning zeros", "[max_pool2]") {
  const auto x = torch::randn({2, 3, 8, 8}).requires_grad_();
  for (const auto& y : {max_pool2_relu(x).pow(2).sum(), max_pool2(x).pow(2).sum()}) {
    CHECK_THROWS_WITH(torch::autograd::grad({y}, {x}, {}, /*retain_graph=*/true,
                                            /*create_graph=*/true),
                      Catch::Contains("no second derivative"));
    CHECK(torch::autograd::grad({y}, {x})[0].sizes() == x.sizes());  // first order still works
  }
}
