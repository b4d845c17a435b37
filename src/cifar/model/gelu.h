// gelu.h: the exact GELU, x * Phi(x), by table lookup for bf16 CPU tensors.
//
// airbench94 runs five GELUs per image on bf16 activations (under CPU
// autocast), forward and backward. ATen computes each through float and a
// vectorised erf/exp; at batch 2000 that is compute-bound, several times the
// cost of moving the bytes. A bf16 input has only 65,536 values, so both
// directions fit in two tables built once from ATen's own kernels:
//
//   forward   y  = value[bits(x)]                  (bf16, ATen's gelu(x))
//   backward  dx = bf16(float(dy) * slope[bits(x)]) (slope: ATen's float
//                                                    gelu'(x), as its bf16
//                                                    backward computes it)
//
// so the results are those of ATen's vectorised kernel, bit for bit, at the
// cost of a load. (ATen itself computes the last few elements of each
// thread's span with scalar code whose erf may differ in the last bit, and
// its subnormal gradients (below 1.2e-38) may differ by one step.) The tables
// serve dense tensors in other layouts than contiguous (channels-last
// activations): ATen sends a contiguous bf16 tensor to oneDNN's GELU, whose
// results differ from its own kernel's in the last bit, so contiguous
// tensors, other devices and dtypes call torch::gelu. The table op has a first
// derivative only: backward with create_graph throws.
#pragma once

#include <torch/torch.h>

namespace cifar {

// torch::gelu(x) (approximate "none"), with its gradient.
torch::Tensor gelu(const torch::Tensor& x);

// True when gelu(x) runs the table kernels rather than LibTorch's (tests use
// it to check they cover the table path).
bool gelu_is_tabled(const torch::Tensor& x);

}  // namespace cifar
