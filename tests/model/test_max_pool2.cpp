// test_max_pool2.cpp: the fused 2x2 max-pool, alone and with the ReLU,
// against LibTorch's ops, bit for bit, forward and backward, in both layouts
// and with hard inputs (ties, zeros, negative windows, NaN, -inf, odd sizes).
#include <catch2/catch.hpp>

#include <limits>

#include "cifar/model/max_pool2.h"
#include "cifar/model/max_pool2_bf16.h"
#include "cifar/platform/guards.h"
#include "forward_backward.h"

using namespace cifar;

namespace {

using Result = test::OutAndGrad;

Result reference(const torch::Tensor& input, const torch::Tensor& grad_out, bool relu) {
  return test::forward_backward(
      [&](const torch::Tensor& x) {
        const auto out = torch::max_pool2d(x, {2, 2}, {2, 2});
        return relu ? torch::relu(out) : out;
      },
      input, grad_out);
}

Result fused(const torch::Tensor& input, const torch::Tensor& grad_out, bool relu) {
  REQUIRE(max_pool2_is_fused(input));
  return test::forward_backward(
      [&](const torch::Tensor& x) { return relu ? max_pool2_relu(x) : max_pool2(x); }, input,
      grad_out);
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

// bfloat16 bit patterns: +0 -0 1 -1 2 inf -inf, and NaNs of either sign,
// quiet and signalling, with payloads.
torch::Tensor special_bf16_bits() {
  return torch::tensor(std::vector<int16_t>{0x0000, -0x8000, 0x3F80, -0x4080, 0x4000, 0x7F80,
                                            -0x0080, 0x7FC1, -0x003D, 0x7F81, -0x007F, 0x7FFF},
                       torch::kInt16);
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

TEST_CASE("max_pool2 keeps the winning bfloat16 bits: NaN payloads and -0.0", "[max_pool2]") {
  // check_same compares values, which cannot tell -0.0 from +0.0 or one NaN
  // from another. Here every output must carry the bits of the window input
  // that ATen's index names (the last NaN, else the first maximum), or +0.0
  // where the ReLU zeroes it (ATen's relu would keep a -0.0 there: equal).
  torch::manual_seed(7);
  const auto table = special_bf16_bits();
  for (const auto format : {torch::MemoryFormat::Contiguous, torch::MemoryFormat::ChannelsLast}) {
    for (const bool relu : {false, true}) {
      for (const bool grad : {false, true}) {  // with and without the winner index
        // 21 channels and 21 outputs a row: the vector loop, its epilogue and a
        // scalar tail
        INFO((format == torch::MemoryFormat::ChannelsLast ? "channels-last" : "NCHW")
             << (relu ? " with ReLU" : "") << (grad ? " with grad" : ""));
        const auto pick = torch::randint(0, table.numel(), {3, 21, 9, 43});
        const auto x = table.index({pick}).view(torch::kBFloat16).contiguous(format);
        const auto [ref, index] =
            torch::max_pool2d_with_indices(x.to(torch::kFloat), {2, 2}, {2, 2});
        auto want = x.view(torch::kInt16).flatten(2).gather(2, index.flatten(2)).view_as(ref);
        if (relu) want = torch::where(ref <= 0, torch::zeros_like(want), want);
        auto input = x.clone().requires_grad_(grad);
        const auto out = relu ? max_pool2_relu(input) : max_pool2(input);
        REQUIRE(max_pool2_is_fused(input));
        CHECK(torch::equal(out.detach().view(torch::kInt16), want));
        if (grad) {
          const auto grad_out = torch::randn(out.sizes()).to(torch::kBFloat16).contiguous(format);
          check_same(fused(x, grad_out, relu), reference(x, grad_out, relu));
        }
      }
    }
  }
}

TEST_CASE("max_pool2_bf16_span picks the ATen winners in each compilation", "[max_pool2]") {
  // One span of 77 windows as the op hands them over (a vector loop, its
  // epilogue and a scalar tail), through the baseline loop and the best one
  // the CPU runs (the same on a CPU without AVX-512).
  torch::manual_seed(8);
  const int64_t n = 77;
  const auto table = special_bf16_bits();
  const auto bits = [](const torch::Tensor& t) {
    return reinterpret_cast<const uint16_t*>(t.const_data_ptr<int16_t>());
  };
  for (const auto isa : {Bf16SpanIsa::kBaseline, Bf16SpanIsa::kBest}) {
    for (const int64_t stride : {1, 2}) {
      for (const bool relu : {false, true}) {
        for (const bool with_idx : {false, true}) {
          INFO((isa == Bf16SpanIsa::kBest ? "best" : "baseline")
               << " stride " << stride << (relu ? " with ReLU" : "")
               << (with_idx ? " with index" : ""));
          const auto windows = table.index({torch::randint(0, table.numel(), {n, 4})});
          const auto x = windows.view(torch::kBFloat16).to(torch::kFloat).view({1, n, 2, 2});
          const auto [ref, index] = torch::max_pool2d_with_indices(x, {2, 2}, {2, 2});
          auto want = windows.gather(1, index.view({n, 1})).view({n});
          auto want_idx = index.view({n}).to(torch::kInt16);
          if (relu) {
            const auto zeroed = ref.view({n}) <= 0;
            want = torch::where(zeroed, torch::zeros_like(want), want);
            want_idx = torch::where(zeroed, torch::full_like(want_idx, kMaxPool2NoGrad), want_idx);
          }
          // stride 1: a, b, d and e each contiguous (channels-last); stride 2:
          // rows a0 b0 a1 b1 ... and d0 e0 d1 e1 ... (NCHW)
          const auto cols = windows.t().contiguous();
          const auto top = windows.narrow(1, 0, 2).contiguous();
          const auto bottom = windows.narrow(1, 2, 2).contiguous();
          const uint16_t* a = stride == 1 ? bits(cols[0]) : bits(top);
          const uint16_t* b = stride == 1 ? bits(cols[1]) : bits(top) + 1;
          const uint16_t* d = stride == 1 ? bits(cols[2]) : bits(bottom);
          const uint16_t* e = stride == 1 ? bits(cols[3]) : bits(bottom) + 1;
          auto out = torch::empty({n}, torch::kInt16);
          auto idx = torch::empty({n}, torch::kInt16);
          max_pool2_bf16_span(
              a, b, d, e, stride, n, relu,
              reinterpret_cast<uint16_t*>(out.mutable_data_ptr<int16_t>()),
              with_idx ? reinterpret_cast<uint16_t*>(idx.mutable_data_ptr<int16_t>()) : nullptr,
              isa);
          CHECK(torch::equal(out, want));
          if (with_idx) CHECK(torch::equal(idx, want_idx));
        }
      }
    }
  }
  uint16_t one = 0;
  CHECK_THROWS_WITH(max_pool2_bf16_span(&one, &one, &one, &one, 3, 1, false, &one, nullptr),
                    Catch::Contains("stride 3"));
}
