// max_pool2.h: the 2x2, stride-2 max-pool (alone, or with the ReLU after it)
// in one pass each way on the CPU.
//
// Both networks pool with a 2x2, stride-2 window: the tutorial Net as
// relu(max_pool2d(x, 2)) twice, airbench94 as max_pool2d(x, 2) on odd sizes
// (31, 15 and 7) once per conv group. LibTorch's CPU max-pool is slow for such
// a small window: in NCHW about a third of a batch-256 Net step, and in
// channels-last bf16 at batch 2000 about a tenth of an airbench94 step, most
// of it the zero fill of the backward pass's input gradient. These ops give
// exactly what
//
//   torch::max_pool2d(x, 2)                 (max_pool2)
//   torch::relu(torch::max_pool2d(x, 2))    (max_pool2_relu)
//
// give: the same values, and the same gradient on the same input element
// (the first maximum of each window in row-major order, NaN winning, as in
// ATen's kernel; with the ReLU, no gradient where the pooled value is <= 0).
// The backward pass writes each input gradient once: no zero fill but the
// dropped odd row and column, no scatter. Other devices, layouts and dtypes
// call LibTorch's ops instead. The fused ops have a first derivative only:
// backward with create_graph throws.
#pragma once

#include <torch/torch.h>

namespace cifar {

// x: (N, C, H, W) -> (N, C, H / 2, W / 2); a trailing odd row or column is
// dropped, as max_pool2d drops it.
torch::Tensor max_pool2(const torch::Tensor& x);
torch::Tensor max_pool2_relu(const torch::Tensor& x);

// True when the ops run the fused CPU kernel for x rather than LibTorch's
// (tests use it to check they cover the fused path).
bool max_pool2_is_fused(const torch::Tensor& x);

}  // namespace cifar
