// optim.h: SGD with momentum as multi-tensor updates, and learning-rate schedules.
//
// Sgd performs PyTorch's torch.optim.SGD update (dampening 0) with LibTorch's
// _foreach kernels: a handful of launches per step for all parameters instead
// of several per parameter, and no allocation beyond the gradients themselves.
// Gradients are reset to none rather than zeroed. Its state (the momentum
// buffers) saves to and loads from an archive, for checkpoints.
//
// The learning rate is a pure function of the global step (lr_at), so a
// resumed run needs no scheduler state.
#pragma once

#include <torch/torch.h>

#include <cstdint>
#include <string>
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
  const char* name() const override { return "sgd"; }

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

enum class Schedule { kConstant, kStep, kCosine, kOneCycle, kLinear };

Schedule parse_schedule(const std::string& text);  // UsageError when unknown
std::string to_string(Schedule schedule);

struct ScheduleOptions {
  Schedule schedule = Schedule::kConstant;
  double base_lr = 0.001;
  double warmup_epochs = 0.0;
  int64_t epochs = 1;
  int64_t steps_per_epoch = 1;
};

// Learning rate for the 0-based global step:
//   constant  base_lr
//   step      base_lr, x0.1 after 50% and again after 75% of training
//   cosine    half-cosine from base_lr down to 0
//   linear    straight down from base_lr at step 0 to 0 at the end (airbench)
//   onecycle  linear rise from base_lr/25 to base_lr over the warm-up (30%
//             of training when --warmup-epochs is 0), then linear fall to 0
// For constant, step, cosine and linear a warm-up ramps linearly from 0 first.
double lr_at(const ScheduleOptions& options, int64_t step);

}  // namespace cifar
