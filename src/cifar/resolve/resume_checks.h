// resume_checks.h: what a checkpoint --resume names is held to, before the
// run goes on from it: the model and stem the options name, the
// fine-tuning it was started with, and the length asked (--epochs, or the
// epochs --steps takes once fitted to the data). Each refusal is a
// UsageError naming what to pass.
#pragma once

#include <cstdint>
#include <optional>
#include <string>

#include "cifar/config/train_config.h"
#include "cifar/io/checkpoint.h"

namespace cifar {

// The checkpoint --resume names (none without it), checked against --model,
// --stem, the fine-tuning options and, without --steps, --epochs.
std::optional<LoadedCheckpoint> load_resume(const TrainConfig& c);

// Refuses (UsageError) a resumed checkpoint `info` that has already trained
// the `epochs` asked, naming what to pass: --epochs, or --steps when
// `steps_per_epoch` > 0 (--steps set the length, fitted to the data).
void check_resume_length(const TrainConfig& config, const CheckpointInfo& info, int64_t epochs,
                         int64_t steps_per_epoch);

// A checkpoint resumed at an epoch's end whose epochs now take another
// number of steps (another --batch-size or --train-limit): its position in
// the schedule becomes its epochs times `steps_per_epoch`, so the schedule,
// which counts steps, goes on from the same epoch (kept as it was, shorter
// epochs ran past the schedule's end and trained at a learning rate of 0).
// Said in the log when `announce`.
void refit_resumed_steps(CheckpointInfo& info, int64_t steps_per_epoch, bool announce);

}  // namespace cifar
