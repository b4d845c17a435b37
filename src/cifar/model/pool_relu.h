// pool_relu.h: relu(max_pool2d(x, 2)) in one pass on the CPU.
//
// The tutorial Net pools twice with a 2x2, stride-2 window and applies a ReLU
// after each pool. LibTorch's CPU max-pool for NCHW tensors is slow for such a
// small window (about a third of a batch-256 step), and the ReLU after it is
// two more passes over memory (forward and backward). This op does both in one
// pass each way and gives exactly what
//
//   torch::relu(F::max_pool2d(x, F::MaxPool2dFuncOptions(2)))
//
// gives: the same values, and the same gradient on the same input element
// (the first maximum of each window in row-major order, NaN winning, as in
// ATen's kernel; no gradient where the pooled value is <= 0, as in ReLU's).
// Other devices, layouts and dtypes call the two LibTorch ops instead. The
// fused op has a first derivative only: backward with create_graph throws.
#pragma once

#include <torch/torch.h>

namespace cifar {

// x: (N, C, H, W) -> (N, C, H / 2, W / 2); a trailing odd row or column is
// dropped, as max_pool2d drops it.
torch::Tensor max_pool2_relu(const torch::Tensor& x);

// True when max_pool2_relu runs the fused CPU kernel for x rather than the
// two LibTorch ops (tests use it to check they cover the fused path).
bool max_pool2_relu_is_fused(const torch::Tensor& x);

}  // namespace cifar
