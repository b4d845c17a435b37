// max_pool2.cpp: the 2x2 max-pool (and max-pool + ReLU), forward and
// backward, for contiguous NCHW and channels-last CPU tensors.
//
// Both layouts walk rows of the output: a row is (n, c, oh) in NCHW, whose
// outputs are ow (inputs two apart), and (n, oh) in channels-last, whose
// outputs are (ow, c) (inputs of one c next to each other). Each output keeps
// which of its window's four inputs won (0-3, row-major), or kNoGrad when the
// ReLU zeroes it; the backward pass writes every input element of a window
// once from that, so it needs no scatter and zero-fills only a dropped odd
// row or column. All loops are branch-free so
// that the compiler vectorizes them.
#include "cifar/model/max_pool2.h"

#include "cifar/model/max_pool2_bf16.h"

#include <ATen/Dispatch.h>
#include <ATen/Parallel.h>

#include <cstdint>
#include <type_traits>
#include <vector>

namespace cifar {
namespace {

constexpr int kNoGrad = kMaxPool2NoGrad;  // the winner index of an output the ReLU zeroes

// The shape of the work, in elements. A row of outputs is (n, c, oh) in
// NCHW and (n, oh) in channels-last; rows are not evenly spaced in the input
// when H is odd (the dropped row sits between planes or images).
struct Geometry {
  Geometry(torch::IntArrayRef sizes, bool channels_last)
      : cl(channels_last), c(sizes[1]), h(sizes[2]), w(sizes[3]), oh(h / 2), ow(w / 2) {
    rows = cl ? sizes[0] * oh : sizes[0] * c * oh;
    row_len = cl ? ow * c : ow;
    down = cl ? w * c : w;
  }
  // Rows below which a loop is not split over threads (about 32k outputs).
  int64_t grain() const { return std::max<int64_t>(1, 32768 / std::max<int64_t>(1, row_len)); }

  bool cl;
  int64_t c, h, w, oh, ow;
  int64_t rows;     // NCHW: N * C * OH; channels-last: N * OH
  int64_t row_len;  // outputs per row: OW; channels-last: OW * C
  int64_t down;     // offset of a window's lower row (NCHW W, channels-last W * C)
};

// NaN is the one value not equal to itself (no -ffast-math here).
template <typename T>
bool is_nan(T v) {
  return v != v;
}

// An unsigned integer as wide as T: the winner index is kept in one, and the
// backward pass moves gradients as bits, so every loop works on lanes of one
// width and the compiler vectorizes it.
template <typename T>
using Bits = std::conditional_t<sizeof(T) == 8, uint64_t,
                                std::conditional_t<sizeof(T) == 4, uint32_t, uint16_t>>;

template <typename T>
torch::Dtype bits_dtype() {
  return sizeof(T) == 8 ? torch::kInt64 : sizeof(T) == 4 ? torch::kInt32 : torch::kInt16;
}

// n windows whose four inputs are a[kStride * j], b[...], d[...], e[...] (top
// left, top right, bottom left, bottom right): NCHW windows sit two apart in
// a row, channels-last windows of neighbouring channels one apart. kRelu
// zeroes outputs <= 0 and marks them kNoGrad. (bfloat16 goes to
// max_pool2_bf16_span, which vectorizes: this loop would not for it.)
template <typename T, int64_t kStride, bool kRelu>
void forward_span(const T* __restrict a, const T* __restrict b, const T* __restrict d,
                  const T* __restrict e, int64_t n, T* __restrict out, Bits<T>* __restrict idx) {
  for (int64_t j = 0; j < n; ++j) {
    const T va = a[kStride * j], vb = b[kStride * j], vd = d[kStride * j], ve = e[kStride * j];
    // ATen's rule, in row-major order: a later element wins if it is greater
    // than the best so far, or if it is NaN.
    const bool b_wins = vb > va || is_nan(vb);
    T best = b_wins ? vb : va;
    Bits<T> at = b_wins ? 1 : 0;
    const bool d_wins = vd > best || is_nan(vd);
    best = d_wins ? vd : best;
    at = d_wins ? 2 : at;
    const bool e_wins = ve > best || is_nan(ve);
    best = e_wins ? ve : best;
    at = e_wins ? 3 : at;
    if constexpr (kRelu) {
      const bool zeroed = best <= T(0);  // NaN stays NaN and passes gradient
      out[j] = zeroed ? T(0) : best;
      if (idx) idx[j] = zeroed ? kNoGrad : at;
    } else {
      out[j] = best;
      if (idx) idx[j] = at;
    }
  }
}

template <typename U, int64_t kStride>
void backward_span(U* __restrict a, U* __restrict b, U* __restrict d, U* __restrict e, int64_t n,
                   const U* __restrict grad_out, const U* __restrict idx) {
  for (int64_t j = 0; j < n; ++j) {
    const U v = grad_out[j], at = idx[j];
    // The gradient's bits, or +0.0 (the mask is all ones or zero; U may be
    // narrower than int, so the & is cast back to U).
    a[kStride * j] = static_cast<U>(v & static_cast<U>(-U(at == 0)));
    b[kStride * j] = static_cast<U>(v & static_cast<U>(-U(at == 1)));
    d[kStride * j] = static_cast<U>(v & static_cast<U>(-U(at == 2)));
    e[kStride * j] = static_cast<U>(v & static_cast<U>(-U(at == 3)));
  }
}

// Runs f(stride, in_at, right, out_at, n) for each span of n windows, split
// over LibTorch's threads: window j has its top-left input at in_at + stride
// * j, its right column `right` further on and its lower row g.down further
// on, and its output at out_at + j. NCHW: one span per output row, windows
// two apart; channels-last: one span per (row, ow), channels one apart.
// stride is a std::integral_constant, so the span loops get a fixed stride to
// vectorize. Rows are counted as (plane or image, oh) so that no row pays
// for a division.
template <typename F>
void for_each_span(const Geometry& g, F&& f) {
  const int64_t c_or_1 = g.cl ? g.c : 1;
  const int64_t plane = g.h * g.w * c_or_1, row_step = 2 * g.w * c_or_1;
  at::parallel_for(0, g.rows, g.grain(), [&](int64_t begin, int64_t end) {
    int64_t p = begin / g.oh, y = begin % g.oh;
    for (int64_t r = begin; r < end; ++r) {
      const int64_t in_at = p * plane + y * row_step, out_at = r * g.row_len;
      if (!g.cl) {
        f(std::integral_constant<int64_t, 2>{}, in_at, int64_t{1}, out_at, g.ow);
      } else {
        for (int64_t x = 0; x < g.ow; ++x) {
          f(std::integral_constant<int64_t, 1>{}, in_at + 2 * x * g.c, g.c, out_at + x * g.c, g.c);
        }
      }
      if (++y == g.oh) y = 0, ++p;
    }
  });
}

template <typename T, bool kRelu>
void forward_kernel(const T* in, const Geometry& g, T* out, Bits<T>* idx) {
  for_each_span(g, [&](auto stride, int64_t i, int64_t right, int64_t o, int64_t n) {
    Bits<T>* winners = idx ? idx + o : nullptr;
    if constexpr (std::is_same_v<T, c10::BFloat16>) {
      const auto* top = reinterpret_cast<const uint16_t*>(in + i);
      const auto* bottom = top + g.down;
      max_pool2_bf16_span(top, top + right, bottom, bottom + right, decltype(stride)::value, n,
                          kRelu, reinterpret_cast<uint16_t*>(out + o), winners);
    } else {
      const T* top = in + i;
      const T* bottom = top + g.down;
      forward_span<T, decltype(stride)::value, kRelu>(top, top + right, bottom, bottom + right, n,
                                                      out + o, winners);
    }
  });
}

template <typename U>
void backward_kernel(const U* grad_out, const U* idx, const Geometry& g, U* grad_in) {
  for_each_span(g, [&](auto stride, int64_t i, int64_t right, int64_t o, int64_t n) {
    U* top = grad_in + i;
    U* bottom = top + g.down;
    backward_span<U, decltype(stride)::value>(top, top + right, bottom, bottom + right, n,
                                              grad_out + o, idx + o);
  });
}

bool is_channels_last(const torch::Tensor& x) {
  return !x.is_contiguous() && x.is_contiguous(torch::MemoryFormat::ChannelsLast);
}

torch::MemoryFormat format_of(bool channels_last) {
  return channels_last ? torch::MemoryFormat::ChannelsLast : torch::MemoryFormat::Contiguous;
}

using torch::autograd::AutogradContext;
using torch::autograd::variable_list;

struct MaxPool2 : torch::autograd::Function<MaxPool2> {
  static torch::Tensor forward(AutogradContext* ctx, const torch::Tensor& x, bool relu) {
    const bool cl = is_channels_last(x);
    const Geometry g(x.sizes(), cl);
    auto out =
        torch::empty({x.size(0), x.size(1), g.oh, g.ow}, x.options().memory_format(format_of(cl)));
    torch::Tensor idx;  // one winner per output, in out's memory order; only when training
    AT_DISPATCH_FLOATING_TYPES_AND2(
        torch::kBFloat16, torch::kHalf, x.scalar_type(), "max_pool2", [&] {
          if (x.requires_grad())
            idx = torch::empty({out.numel()}, x.options().dtype(bits_dtype<scalar_t>()));
          const auto* in = x.const_data_ptr<scalar_t>();
          auto* o = out.mutable_data_ptr<scalar_t>();
          auto* winners = idx.defined() ? static_cast<Bits<scalar_t>*>(idx.data_ptr()) : nullptr;
          if (relu) {
            forward_kernel<scalar_t, true>(in, g, o, winners);
          } else {
            forward_kernel<scalar_t, false>(in, g, o, winners);
          }
        });
    if (idx.defined()) {
      ctx->saved_data["idx"] = idx;
      ctx->saved_data["sizes"] = x.sizes().vec();
      ctx->saved_data["dtype"] = x.scalar_type();
      ctx->saved_data["channels_last"] = cl;
    }
    return out;
  }

  static variable_list backward(AutogradContext* ctx, variable_list grads) {
    // The kernels below are not recorded by autograd, so a second derivative
    // would silently come out as zero.
    TORCH_CHECK(!torch::GradMode::is_enabled(),
                "max_pool2 has no second derivative (backward with create_graph=true); "
                "use torch::max_pool2d(x, 2) for higher-order gradients");
    const torch::Tensor idx = ctx->saved_data["idx"].toTensor();
    const std::vector<int64_t> sizes = ctx->saved_data["sizes"].toIntVector();
    const bool cl = ctx->saved_data["channels_last"].toBool();
    const Geometry g(sizes, cl);
    const auto dtype = ctx->saved_data["dtype"].toScalarType();
    const torch::Tensor grad_out = grads[0].to(dtype).contiguous(format_of(cl));
    torch::Tensor grad_in = torch::empty(sizes, grad_out.options().memory_format(format_of(cl)));
    // An odd trailing row or column gets no gradient and is never written by
    // the kernel: zero just that row and column.
    if (g.h % 2 != 0) grad_in.narrow(2, g.h - 1, 1).zero_();
    if (g.w % 2 != 0) grad_in.narrow(3, g.w - 1, 1).zero_();
    AT_DISPATCH_FLOATING_TYPES_AND2(
        torch::kBFloat16, torch::kHalf, dtype, "max_pool2_backward", [&] {
          using U = Bits<scalar_t>;
          backward_kernel<U>(static_cast<const U*>(grad_out.const_data_ptr()),
                             static_cast<const U*>(idx.const_data_ptr()), g,
                             static_cast<U*>(grad_in.mutable_data_ptr()));
        });
    return {grad_in, torch::Tensor()};  // none for the relu flag
  }
};

}  // namespace

bool max_pool2_is_fused(const torch::Tensor& x) {
  const auto t = x.scalar_type();  // the dtypes the kernels are dispatched for
  const bool dtype_ok =
      t == torch::kFloat || t == torch::kDouble || t == torch::kBFloat16 || t == torch::kHalf;
  return x.device().is_cpu() && x.dim() == 4 && x.layout() == torch::kStrided && dtype_ok &&
         x.size(2) >= 2 && x.size(3) >= 2 &&
         (x.is_contiguous() || x.is_contiguous(torch::MemoryFormat::ChannelsLast));
}

torch::Tensor max_pool2(const torch::Tensor& x) {
  if (!max_pool2_is_fused(x))
    return torch::max_pool2d(x, /*kernel_size=*/{2, 2}, /*stride=*/{2, 2});
  return MaxPool2::apply(x, /*relu=*/false);
}

torch::Tensor max_pool2_relu(const torch::Tensor& x) {
  if (!max_pool2_is_fused(x)) {
    return torch::relu(torch::max_pool2d(x, /*kernel_size=*/{2, 2}, /*stride=*/{2, 2}));
  }
  return MaxPool2::apply(x, /*relu=*/true);
}

}  // namespace cifar
