// stateful.h: something whose state goes into a checkpoint and comes back.
//
// The optimisers (momentum buffers), and the set of them a recipe trains
// with, implement it; io/checkpoint.h stores any Stateful under "optimizer",
// so the checkpoint layer knows no optimiser by name.
#pragma once

#include <torch/torch.h>

namespace cifar {

class Stateful {
 public:
  virtual ~Stateful() = default;
  virtual void save(torch::serialize::OutputArchive& archive) const = 0;
  virtual void load(torch::serialize::InputArchive& archive) = 0;
};

}  // namespace cifar
