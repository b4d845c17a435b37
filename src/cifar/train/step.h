// step.h: one training step, the loop's body.
//
// A step is: forward (under autocast when asked), loss, zero_grad, backward
// (of the loss times the loss scale under --amp fp16), gradients averaged over
// the processes, gradients unscaled and checked for inf/NaN (fp16 only: such a
// step is skipped, grad_scaler.h), optimizer update. With one process
// the averaging does nothing: the same code path, a degenerate case. The loss and the number of
// correct predictions are added to running totals that stay on the device, so a step never waits
// for the GPU. TrainStep is the interface the epoch loop calls; the eager step is here, the
// replayed step a CUDA graph captures (same interface) in replayed_step.h.
#pragma once

#include <torch/torch.h>

#include <cstdint>
#include <memory>
#include <vector>

#include "cifar/core/types.h"
#include "cifar/data/loader.h"
#include "cifar/dist/distributed.h"
#include "cifar/dist/grad_averager.h"
#include "cifar/model/models.h"
#include "cifar/optim/grad_scaler.h"
#include "cifar/optim/param_groups.h"
#include "cifar/resolve/step_spec.h"

namespace cifar {

// The model being trained and everything that updates it.
struct Learner {
  ClassifierImpl& model;
  ParamGroups& groups;         // optimisers and their schedules
  Distributed& dist;           // world size 1: every collective returns at once
  GradientAverager& averager;  // over dist's ranks
  GradScaler& scaler;          // --amp fp16's loss scaling; disabled otherwise
  // Modules kept in eval mode while the rest trains (--freeze-body's batch
  // norms: their running statistics stay as loaded; train/fine_tune.h).
  std::vector<std::shared_ptr<torch::nn::Module>> held_in_eval = {};
};

// Sums over the steps so far, on the training device.
struct RunningTotals {
  explicit RunningTotals(const torch::Device& device);
  // () double: sum of per-sample losses; float64, so that an epoch resumed
  // mid-way (its earlier sum kept in the checkpoint) sums as one never stopped
  torch::Tensor loss_sum;
  torch::Tensor correct;  // () int64: correct predictions
};

// Forward and loss of one batch (mean or sum, as options.sum_loss says); adds the
// batch's summed loss and correct count to `totals` (no host sync).
// `autocast_cache` must be off while a CUDA graph is captured.
torch::Tensor forward_loss(ClassifierImpl& model, const Batch& batch, const StepSpec& options,
                           RunningTotals& totals, bool autocast_cache = true);

class TrainStep {
 public:
  virtual ~TrainStep() = default;
  // One update on `batch`, the run's 0-based `global_step` (which sets each
  // group's rate). Returns true when a stop was requested (Ctrl-C, SIGTERM)
  // on any process: all agree on the step.
  virtual bool run(const Batch& batch, int64_t global_step) = 0;
};

std::unique_ptr<TrainStep> make_eager_step(Learner& learner, const StepSpec& options,
                                           RunningTotals& totals);

}  // namespace cifar
