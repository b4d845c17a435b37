// step.h: one training step, the loop's body.
//
// A step is: forward (under autocast when asked), loss, zero_grad, backward,
// optimizer update. The loss and the number of correct predictions are
// added to running totals that stay on the device, so a step never waits for
// the GPU. TrainStep is the interface the epoch loop calls; the eager step is
// here, the CUDA-graph step (same interface) in cuda_graph.h.
#pragma once

#include <torch/torch.h>

#include <cstdint>
#include <memory>

#include "cifar/config.h"
#include "cifar/loader.h"
#include "cifar/models.h"
#include "cifar/optim.h"

namespace cifar {

struct StepOptions {
  AmpMode amp = AmpMode::kOff;
  double label_smoothing = 0.0;
};

// Sums over the steps so far, on the training device.
struct RunningTotals {
  explicit RunningTotals(const torch::Device& device);
  torch::Tensor loss_sum;  // () float: sum of per-sample losses
  torch::Tensor correct;   // () int64: correct predictions
};

// Forward and mean loss of one batch; adds to `totals` (no host sync).
// `autocast_cache` must be off while a CUDA graph is captured.
torch::Tensor forward_loss(ClassifierImpl& model, const Batch& batch, const StepOptions& options,
                           RunningTotals& totals, bool autocast_cache = true);

class TrainStep {
 public:
  virtual ~TrainStep() = default;
  // One update on `batch` at learning rate `lr`.
  virtual void run(const Batch& batch, double lr) = 0;
};

std::unique_ptr<TrainStep> make_eager_step(ClassifierImpl& model, Sgd& optimizer,
                                           const StepOptions& options, RunningTotals& totals);

}  // namespace cifar
