// loop_spec.h: what the loop of a run's epochs follows, resolved.
//
// The epoch loop (train/epoch_loop.h) takes this and nothing else of the
// settings: how many epochs, which of them are evaluated and how, each
// epoch's shuffle, the resolution schedule, and what it reports. Built once
// from the settings resolve_run has fitted (the batch to the training split,
// the epochs to --steps) and the resolved Precision.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "cifar/config/train_config.h"
#include "cifar/core/types.h"
#include "cifar/data/resolution.h"

namespace cifar {

struct LoopSpec {
  int64_t epochs = 0;      // --epochs, the last one numbered so
  double time_s = 0;       // --time in seconds (0: off): epochs fitted to it
  int64_t eval_every = 1;  // --eval-every: every N-th epoch and the last
  uint64_t seed = 0;       // --seed: each epoch's shuffle and augmentation
  // --resolution-schedule scaled to the run's image size: each epoch's side
  std::vector<int64_t> resolutions;
  std::string model;            // the model's name (out-of-memory advice, result)
  int64_t batch_size = 0;       // --batch-size as fitted (out-of-memory advice)
  int64_t eval_batch_size = 0;  // --eval-batch-size
  Precision precision = {};     // --amp resolved: the evaluations' autocast
  int64_t tta = 0;              // --tta's level
  bool tensorboard = false;     // the running loss for TensorBoard (rank 0)
  double log_interval_s = 0;    // --log-interval: progress lines off a terminal
  bool cpu_onednn = true;       // a CPU trains through oneDNN (resolve/machine.h)
};

// The loop of a run with these (fitted, resolved) settings, training
// `model` at `image_size`.
inline LoopSpec loop_spec(const TrainConfig& settings, const Precision& precision,
                          const std::string& model, int64_t image_size) {
  return {.epochs = settings.epochs,
          .time_s = settings.time_minutes * 60,
          .eval_every = settings.eval_every,
          .seed = settings.seed,
          // Written for the data sets' own 32 px: at --image-size N, N/32 of each size.
          .resolutions = scaled_schedule(settings.resolution_schedule, kCifarImageSize, image_size),
          .model = model,
          .batch_size = settings.batch_size,
          .eval_batch_size = settings.eval_batch_size,
          .precision = precision,
          .tta = settings.tta,
          .tensorboard = settings.tensorboard,
          .log_interval_s = settings.log_interval_s};
}

}  // namespace cifar
