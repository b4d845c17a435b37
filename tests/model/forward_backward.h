// forward_backward.h: one forward and backward pass of an op on a fresh leaf
// copy of its input, for the model tests that compare our CPU kernels with
// LibTorch's ops (output and input gradient side by side).
#pragma once

#include <torch/torch.h>

#include <functional>

namespace cifar::test {

struct OutAndGrad {
  torch::Tensor out, grad;  // f(x), and x's gradient for grad_out
};

inline OutAndGrad forward_backward(const std::function<torch::Tensor(const torch::Tensor&)>& f,
                                   const torch::Tensor& input, const torch::Tensor& grad_out) {
  auto x = input.detach().clone().requires_grad_();
  auto out = f(x);
  out.backward(grad_out);
  return {out.detach(), x.grad()};
}

}  // namespace cifar::test
