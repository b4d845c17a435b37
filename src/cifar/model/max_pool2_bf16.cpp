// max_pool2_bf16.cpp: the bfloat16 forward span of the fused 2x2 max-pool,
// one portable loop compiled twice on x86-64 (baseline and AVX-512), the
// second taken when the CPU has it.
#include "cifar/model/max_pool2_bf16.h"

#include <bit>
#include <cmath>
#include <stdexcept>
#include <string>

namespace cifar {
namespace {

using Out = uint16_t* __restrict;
using In = const uint16_t* __restrict;

[[gnu::always_inline]] inline float widen(uint16_t bits) {
  return std::bit_cast<float>(static_cast<uint32_t>(bits) << 16);
}

[[gnu::always_inline]] inline uint16_t narrow(float v) {
  return static_cast<uint16_t>(std::bit_cast<uint32_t>(v) >> 16);
}

// The loop. Always inlined, so that each caller below compiles it for its own
// instruction set (the inliner's size budget could leave it out of line,
// compiled for the baseline, and so unvectorized for AVX-512).
template <int64_t kStride, bool kRelu>
[[gnu::always_inline]] inline void span(In a, In b, In d, In e, int64_t n, Out out, Out idx) {
  for (int64_t j = 0; j < n; ++j) {
    const float va = widen(a[kStride * j]), vb = widen(b[kStride * j]);
    const float vd = widen(d[kStride * j]), ve = widen(e[kStride * j]);
    const bool b_wins = vb > va || std::isnan(vb);
    float best = b_wins ? vb : va;
    uint16_t at = b_wins ? 1 : 0;
    const bool d_wins = vd > best || std::isnan(vd);
    best = d_wins ? vd : best;
    at = d_wins ? 2 : at;
    const bool e_wins = ve > best || std::isnan(ve);
    best = e_wins ? ve : best;
    at = e_wins ? 3 : at;
    if constexpr (kRelu) {
      const bool zeroed = best <= 0.0F;  // NaN stays NaN and passes gradient
      out[j] = zeroed ? uint16_t{0} : narrow(best);
      if (idx) idx[j] = zeroed ? kMaxPool2NoGrad : at;
    } else {
      out[j] = narrow(best);
      if (idx) idx[j] = at;
    }
  }
}

#if defined(__x86_64__) && defined(__GNUC__)
template <int64_t kStride, bool kRelu>
[[gnu::target("avx512f,avx512bw,avx512vl")]] void span_avx512(In a, In b, In d, In e, int64_t n,
                                                              Out out, Out idx) {
  span<kStride, kRelu>(a, b, d, e, n, out, idx);
}

bool has_avx512() {  // libgcc's CPU flags (set with the OS's AVX-512 state)
  return __builtin_cpu_supports("avx512f") && __builtin_cpu_supports("avx512bw") &&
         __builtin_cpu_supports("avx512vl");
}
#endif

template <int64_t kStride, bool kRelu>
void dispatch(In a, In b, In d, In e, int64_t n, Out out, Out idx,
              [[maybe_unused]] Bf16SpanIsa isa) {
#if defined(__x86_64__) && defined(__GNUC__)
  if (isa == Bf16SpanIsa::kBest && has_avx512()) {
    span_avx512<kStride, kRelu>(a, b, d, e, n, out, idx);
    return;
  }
#endif
  span<kStride, kRelu>(a, b, d, e, n, out, idx);
}

}  // namespace

void max_pool2_bf16_span(const uint16_t* a, const uint16_t* b, const uint16_t* d, const uint16_t* e,
                         int64_t stride, int64_t n, bool relu, uint16_t* out, uint16_t* idx,
                         Bf16SpanIsa isa) {
  if (stride == 1) {
    relu ? dispatch<1, true>(a, b, d, e, n, out, idx, isa)
         : dispatch<1, false>(a, b, d, e, n, out, idx, isa);
  } else if (stride == 2) {
    relu ? dispatch<2, true>(a, b, d, e, n, out, idx, isa)
         : dispatch<2, false>(a, b, d, e, n, out, idx, isa);
  } else {
    throw std::invalid_argument("max_pool2_bf16_span: stride " + std::to_string(stride) +
                                " is not 1 or 2 (channels-last or NCHW windows)");
  }
}

}  // namespace cifar
