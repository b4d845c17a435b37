// max_pool2_bf16.h: the forward pass of the fused 2x2 max-pool (max_pool2.h)
// over a span of bfloat16 windows, computed on the values' bits.
//
// c10::BFloat16 compares through a scalar conversion to float that the
// compiler does not vectorize, so max_pool2.cpp hands its bfloat16 spans to
// this loop instead. A bfloat16 is the top half of a float: widening it is a
// shift, and exact; the comparisons are those of the other dtypes' loop, and
// the winner's bits are stored unchanged (NaN payloads and -0.0 included).
// On an x86-64 CPU with AVX-512 (F, BW, VL) the same loop runs compiled for
// it, chosen at run time; elsewhere it runs as the build's flags compile it.
// Both give the same bits: the loop only compares and selects.
#pragma once

#include <cstdint>

namespace cifar {

// The winner index of an output that the ReLU zeroes (the others are 0-3:
// the window's inputs in row-major order).
inline constexpr uint16_t kMaxPool2NoGrad = 255;

// n windows whose four inputs are a[stride * j], b[...], d[...], e[...] (top
// left, top right, bottom left, bottom right; stride 2 in NCHW, 1 in
// channels-last). out[j] gets the maximum, as ATen's max-pool chooses it: in
// row-major order, a later input wins if it is greater than the best so far
// or if it is NaN. idx[j] (when idx is not null) gets the winner's index.
// relu: outputs <= 0 become +0.0 with index kMaxPool2NoGrad (NaN stays).
// isa picks the loop's compilation: the best the CPU runs, or the baseline
// (tests run both).
enum class Bf16SpanIsa { kBest, kBaseline };
void max_pool2_bf16_span(const uint16_t* a, const uint16_t* b, const uint16_t* d, const uint16_t* e,
                         int64_t stride, int64_t n, bool relu, uint16_t* out, uint16_t* idx,
                         Bf16SpanIsa isa = Bf16SpanIsa::kBest);

}  // namespace cifar
