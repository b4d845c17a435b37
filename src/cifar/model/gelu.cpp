// gelu.cpp: the GELU tables (built once from ATen's kernels) and the two
// loops that read them, split over threads with at::parallel_for.
//
// The tables are immutable once built (a function-local static, so the first
// caller builds them and the rest wait). A dense tensor is walked in memory
// order whatever its strides: GELU is elementwise, and the outputs are
// allocated with the input's strides.
#include "cifar/model/gelu.h"

#include <ATen/Parallel.h>

#include <cstdint>
#include <cstring>
#include <vector>

namespace cifar {
namespace {

constexpr int64_t kValues = int64_t{1} << 16;  // every bf16 bit pattern
constexpr int64_t kGrain = 32768;              // elements below which a loop is not split

struct GeluTables {
  std::vector<uint16_t> value;  // bits of ATen's bf16 gelu(x), indexed by bits(x)
  std::vector<float> slope;     // ATen's float gelu'(x), indexed by bits(x)
};

// The same values in a non-contiguous layout (a transposed 256 x 256 view),
// so that ATen runs its own kernels on them, as on channels-last activations.
torch::Tensor transposed(const torch::Tensor& flat) {
  return flat.view({256, 256}).t().contiguous().t();
}

GeluTables build_tables() {
  torch::NoGradGuard no_grad;
  // Every bf16 value once: the bit patterns 0..65535 as int16, viewed as bf16.
  const auto bits = torch::arange(kValues, torch::kInt32).to(torch::kInt16);
  const auto x = transposed(bits.view(torch::kBFloat16));
  const auto value = torch::gelu(x).reshape({-1}).view(torch::kInt16).contiguous();
  // ATen's bf16 backward widens x and dy to float and returns
  // dy * gelu'(x) rounded once; with dy = 1 the float kernel gives gelu'(x).
  const auto x_float = x.to(torch::kFloat);
  const auto slope =
      torch::gelu_backward(torch::ones_like(x_float), x_float).reshape({-1}).contiguous();
  GeluTables tables{std::vector<uint16_t>(kValues), std::vector<float>(kValues)};
  std::memcpy(tables.value.data(), value.const_data_ptr(), sizeof(uint16_t) * kValues);
  std::memcpy(tables.slope.data(), slope.const_data_ptr<float>(), sizeof(float) * kValues);
  return tables;
}

const GeluTables& tables() {
  static const GeluTables built = build_tables();
  return built;
}

// x, y: n bf16 values as bits.
void forward_kernel(const uint16_t* __restrict x, uint16_t* __restrict y, int64_t n) {
  const uint16_t* __restrict value = tables().value.data();
  at::parallel_for(0, n, kGrain, [&](int64_t begin, int64_t end) {
    for (int64_t i = begin; i < end; ++i) y[i] = value[x[i]];
  });
}

// dy, x, dx: n bf16 values as bits; rounding as c10::BFloat16(float).
void backward_kernel(const uint16_t* __restrict dy, const uint16_t* __restrict x,
                     uint16_t* __restrict dx, int64_t n) {
  const float* __restrict slope = tables().slope.data();
  at::parallel_for(0, n, kGrain, [&](int64_t begin, int64_t end) {
    for (int64_t i = begin; i < end; ++i)
      dx[i] = c10::detail::round_to_nearest_even(c10::detail::f32_from_bits(dy[i]) * slope[x[i]]);
  });
}

const uint16_t* bits_of(const torch::Tensor& t) {
  return static_cast<const uint16_t*>(t.const_data_ptr());
}
uint16_t* bits_of(torch::Tensor& t) {
  return static_cast<uint16_t*>(t.mutable_data_ptr());
}

using torch::autograd::AutogradContext;
using torch::autograd::variable_list;

struct GeluTable : torch::autograd::Function<GeluTable> {
  static torch::Tensor forward(AutogradContext* ctx, const torch::Tensor& x) {
    auto y = torch::empty_like(x);  // x is dense: y gets its strides
    forward_kernel(bits_of(x), bits_of(y), x.numel());
    if (x.requires_grad()) ctx->save_for_backward({x});
    return y;
  }

  static variable_list backward(AutogradContext* ctx, variable_list grads) {
    // The kernel below is not recorded by autograd, so a second derivative
    // would silently come out as zero.
    TORCH_CHECK(!torch::GradMode::is_enabled(),
                "cifar::gelu has no second derivative (backward with create_graph=true); "
                "use torch::gelu for higher-order gradients");
    const torch::Tensor x = ctx->get_saved_variables()[0];
    torch::Tensor dy = grads[0].to(torch::kBFloat16);
    if (dy.strides() != x.strides()) dy = torch::empty_like(x).copy_(dy);
    auto dx = torch::empty_like(x);
    backward_kernel(bits_of(dy), bits_of(x), bits_of(dx), x.numel());
    return {dx};
  }
};

}  // namespace

bool gelu_is_tabled(const torch::Tensor& x) {
  // A contiguous bf16 tensor goes to oneDNN's GELU in ATen, whose results
  // differ in the last bit from ATen's own kernel (which the tables hold).
  return x.device().is_cpu() && x.layout() == torch::kStrided &&
         x.scalar_type() == torch::kBFloat16 && x.is_non_overlapping_and_dense() &&
         !x.is_contiguous();
}

torch::Tensor gelu(const torch::Tensor& x) {
  if (!gelu_is_tabled(x)) return torch::gelu(x);
  return GeluTable::apply(x);
}

}  // namespace cifar
