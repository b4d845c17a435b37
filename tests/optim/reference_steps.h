// reference_steps.h: an optimiser's three steps on p = [1, -2, 0.5]
// (float64) with fixed gradients at the rates 0.1, 0.05, 0.01, each checked
// against the numbers its Python reference printed for the same steps.
#pragma once

#include <torch/torch.h>
#include <catch2/catch.hpp>

#include <vector>

#include "cifar/optim/optimizer.h"

namespace cifar::test {

inline const std::vector<std::vector<double>> kReferenceGrads{
    {0.3, -0.1, 2.0}, {-0.5, 0.2, 1.0}, {0.1, 0.1, -3.0}};
inline const std::vector<double> kReferenceRates{0.1, 0.05, 0.01};

inline torch::Tensor reference_param() {
  return torch::tensor({1.0, -2.0, 0.5}, torch::kDouble).requires_grad_();
}

// Takes the steps with `optimizer` over `p`; after step t every element is
// within 1e-14 (relative) of python[t].
inline void check_reference_steps(Optimizer& optimizer, torch::Tensor& p,
                                  const std::vector<std::vector<double>>& python) {
  for (size_t t = 0; t < kReferenceGrads.size(); ++t) {
    optimizer.zero_grad();
    p.mutable_grad() = torch::tensor(kReferenceGrads[t], torch::kDouble);
    optimizer.step(kReferenceRates[t]);
    for (int64_t i = 0; i < 3; ++i) {
      INFO("step " << t + 1 << ", element " << i);
      CHECK(p[i].item<double>() == Approx(python[t][static_cast<size_t>(i)]).epsilon(1e-14));
    }
  }
}

}  // namespace cifar::test
