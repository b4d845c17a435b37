// optimizer.h: what the training step asks of an optimiser.
//
// An optimiser owns a list of parameters and the state it keeps for them
// (momentum buffers); step(lr) updates the parameters that have a gradient
// at learning rate lr, and zero_grad() drops the gradients (sets them to
// none). The learning rate comes from outside, a pure function of the
// global step (param_groups.h), so a resumed run needs no scheduler state.
// Implementations: Sgd (optim.h), Muon (muon.h), AdamW (adamw.h), Lion (lion.h).
#pragma once

#include <torch/torch.h>

#include <vector>

#include "cifar/core/stateful.h"

namespace cifar {

class Optimizer : public Stateful {
 public:
  virtual void zero_grad() = 0;
  virtual void step(double lr) = 0;
  // The same update with the rate in a device scalar, which a captured CUDA
  // graph replays at a changing rate (train/replayed_step.h): Sgd's and
  // Muon's. Only for such an optimiser (an --optimizer entry declares it as
  // graph_step); std::logic_error else.
  virtual void device_rate_step(const torch::Tensor& lr);
  // The tensors a step changes besides the parameters (momentum buffers),
  // which the graph's warm-up puts back after its trial steps.
  virtual std::vector<torch::Tensor> state_tensors() const { return {}; }
  // "sgd", "muon": for the log.
  virtual const char* name() const = 0;
};

}  // namespace cifar
