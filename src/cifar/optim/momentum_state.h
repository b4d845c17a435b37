// momentum_state.h: an optimiser's momentum buffers in a checkpoint archive.
//
// Sgd and Muon keep one buffer per parameter and store them alike, under
// "momentum.<i>"; loading checks each buffer's shape against the model's.
#pragma once

#include <fmt/format.h>
#include <torch/torch.h>

#include <vector>

namespace cifar {

inline void save_momentum(torch::serialize::OutputArchive& archive,
                          const std::vector<torch::Tensor>& buffers) {
  for (size_t i = 0; i < buffers.size(); ++i) {
    archive.write(fmt::format("momentum.{}", i), buffers[i], /*is_buffer=*/true);
  }
}

inline void load_momentum(torch::serialize::InputArchive& archive,
                          std::vector<torch::Tensor>& buffers) {
  torch::NoGradGuard no_grad;
  for (size_t i = 0; i < buffers.size(); ++i) {
    torch::Tensor saved;
    archive.read(fmt::format("momentum.{}", i), saved, /*is_buffer=*/true);
    TORCH_CHECK(saved.sizes() == buffers[i].sizes(), "optimizer state for parameter ", i,
                " has shape ", saved.sizes(), ", expected ", buffers[i].sizes());
    buffers[i].copy_(saved);
  }
}

}  // namespace cifar
