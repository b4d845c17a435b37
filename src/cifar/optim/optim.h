// optim.h: SGD with momentum as multi-tensor updates.
//
// Sgd performs PyTorch's torch.optim.SGD update (dampening 0) with LibTorch's
// _foreach kernels: a handful of launches per step for all parameters instead
// of several per parameter, and no allocation beyond the gradients themselves.
// Gradients are reset to none rather than zeroed. Its state (the momentum
// buffers) saves to and loads from an archive, for checkpoints.
//
// The learning rate comes with each step, from its parameter group's
// schedule (lr_schedule.h).
#pragma once

#include <torch/torch.h>

#include <cstdint>
#include <vector>

#include "cifar/optim/optimizer.h"

namespace cifar {

// The update's settings; its learning rate comes with each step (from the
// parameter group's schedule, param_groups.h).
struct SgdOptions {
  TORCH_ARG(double, momentum) = 0.9;
  TORCH_ARG(bool, nesterov) = false;
  TORCH_ARG(double, weight_decay) = 0.0;
};

class Sgd : public Optimizer {
 public:
  Sgd(std::vector<torch::Tensor> params, SgdOptions options);

  // Sets every gradient to none (undefined).
  void zero_grad() override;
  // One update at learning rate `lr`; parameters without a gradient are skipped.
  void step(double lr) override;
  // The same update with the learning rate in a device scalar, so that a
  // captured CUDA graph can replay it at a changing rate.
  void step(const torch::Tensor& lr);
  void device_rate_step(const torch::Tensor& lr) override { step(lr); }
  const char* name() const override { return "sgd"; }
  std::vector<torch::Tensor> state_tensors() const override { return momentum_; }

  const SgdOptions& options() const { return options_; }
  void save(torch::serialize::OutputArchive& archive) const override;
  void load(torch::serialize::InputArchive& archive) override;

 private:
  // The parameters that have a gradient, their gradients and momentum
  // buffers, with weight decay and the momentum update already applied.
  struct Active {
    std::vector<torch::Tensor> params, grads, bufs;
    const std::vector<torch::Tensor>& direction(const SgdOptions& options) const;
  };
  Active active() const;

  std::vector<torch::Tensor> params_;
  std::vector<torch::Tensor> momentum_;  // one buffer per parameter, zeros at start
  SgdOptions options_;
};

}  // namespace cifar
