// epoch.h: one pass over the training data.
//
// train_one_epoch walks the epoch's plan (this process's share of it)
// batch by batch:
//   data.batch; before_step (the thread rule); step.run(batch, global_step)
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
#include <memory>
#include <vector>

#include "cifar/data/loader.h"
#include "cifar/data/shard.h"
#include "cifar/io/checkpoint.h"
#include "cifar/model/models.h"
#include "cifar/train/replayed_step.h"

namespace cifar {

struct EpochOptions {
  EpochShape shape;
  StepSpec step;
  // --resolution-schedule: the size each epoch's batches are resized to
  // before the step (data/resolution.h); past its end, none.
  std::vector<int64_t> resolutions;
  bool progress_bar = false;
  double log_interval_s = 10;
  // Called before every step with its global step: a step boundary, where
  // the thread rule may change the count (platform/cpu_plan.h).
  std::function<void(int64_t)> before_step;
  // Called after every step with the images it took (the forecast).
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
  EpochSoFar so_far{};      // resuming mid-epoch: the figures of the steps before first_step
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

// The figures of `later` (an epoch's steps from a resumed position on) with
// those of the steps before them added: the whole epoch's loss, accuracy,
// images, time and skipped steps. Nothing changes when `earlier` is empty.
EpochStats add_earlier_steps(EpochStats later, const EpochSoFar& earlier);

// What a checkpoint written mid-epoch carries of the epoch's steps so far.
EpochSoFar so_far_of(const EpochStats& stats);

// What outlives one epoch of a run: the running totals the steps add to
// (zeroed in place at each epoch's start) and, under --cuda-graph, the step
// made before the first epoch and replayed by every later one (it adds to
// those totals where it captured them; train/replayed_step.h). It is
// captured before an epoch's timer starts when the epoch brings a new image
// size or set of training groups, timed apart (no epoch's time includes
// it); a group frozen mid-epoch is captured at that step, inside the
// epoch's time (logged). A test may
// put its own replayed step here (make_uncaptured_step) before the first
// epoch.
struct EpochState {
  explicit EpochState(const torch::Device& device) : totals(device) {}
  RunningTotals totals;
  std::unique_ptr<ReplayedStep> graphed;
  double capture_seconds = 0;  // the warm-ups and captures before epochs (not mid-epoch ones)
};

// `plan` is this process's share (shard_plan), of the length
// options.shape was made for. `state` carries what the run's epochs share
// (null: this epoch alone, as the tests call it).
EpochStats train_one_epoch(Learner& learner, const DeviceDataset& data, const EpochPlan& plan,
                           const EpochOptions& options, const EpochPosition& position,
                           EpochState* state = nullptr);

}  // namespace cifar
