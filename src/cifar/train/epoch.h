// epoch.h: one pass over the training data.
//
// train_one_epoch walks the epoch's plan (this process's share of it)
// batch by batch:
//   next_batch; before_step (thread probes, when due); step.run(batch, global_step)
//   (forward, zero_grad, backward, update); after_step
// and refreshes the progress display every --log-interval seconds (a fifth
// of a second on a terminal). Only then, every `loss_every` steps (the
// running loss for TensorBoard), and at the end are the running totals read
// back to the host; a non-finite loss stops training there. A stop
// request (Ctrl-C, SIGTERM, on any process) ends the epoch after the current
// step. The epoch's loss and accuracy are summed over the processes.
#pragma once

#include <cstdint>
#include <functional>

#include "cifar/data/loader.h"
#include "cifar/model/models.h"
#include "cifar/train/step.h"

namespace cifar {

struct EpochOptions {
  int64_t batch_size = 4;  // per process
  bool drop_last = false;  // drop the last partial batch (a CUDA graph always does)
  StepOptions step;
  bool cuda_graph = false;  // only honoured on a CUDA device
  bool progress_bar = false;
  double log_interval_s = 10;
  // Called before every step with its global step, its images and a probe:
  // forward and backward of the step's batch (its first n images, n the
  // probe's argument) that change nothing (thread_probe.h), which the thread
  // tuner times at other counts.
  std::function<void(int64_t, int64_t, const std::function<void(int64_t)>&)> before_step;
  // Called after every step with the images it took (the thread tuner, the forecast).
  std::function<void(int64_t)> after_step;
  // Called every `loss_every` steps with the global step and the epoch's
  // running mean loss (TensorBoard's train/running_loss).
  std::function<void(int64_t, double)> on_loss;
  int64_t loss_every = 10;
};

// Where in the run this epoch starts.
struct EpochPosition {
  int64_t epoch = 1;  // 1-based
  int64_t epochs = 1;
  int64_t first_step = 0;   // > 0 when resuming mid-epoch
  int64_t global_step = 0;  // of first_step
};

struct EpochStats {
  double loss = 0;  // mean over the samples seen
  double accuracy = 0;
  int64_t images = 0;
  int64_t steps = 0;  // steps completed this epoch, counting from step 0
  double seconds = 0;
  int64_t peak_memory_bytes = 0;
  double last_lr = 0;
  int64_t skipped_steps = 0;  // --amp fp16: steps skipped for inf/NaN gradients
  bool interrupted = false;
};

// Steps in an epoch of n samples; a CUDA graph drops the last partial batch.
int64_t steps_in_epoch(int64_t n, int64_t batch_size, bool drop_last);

// `plan` is this process's share (shard_plan); its length sets the steps.
EpochStats train_one_epoch(Learner& learner, const DeviceDataset& data, const EpochPlan& plan,
                           const EpochOptions& options, const EpochPosition& position);

}  // namespace cifar
