// train.h: the training job, from settings to checkpoints and a report.
//
// train() reads as the steps of a run: choose the device; load the
// checkpoint to resume, if any; read the data and move it to the device once;
// only then create the outputs; build the model and optimizer; then per
// epoch: train_one_epoch, evaluate, log a line, append to metrics.csv and
// write checkpoints. A stop request writes a checkpoint of the last completed
// step and throws Interrupted with the command that resumes. Launched several
// times (torchrun), the processes train one model on their shares of each
// batch; with one process every exchange returns at once.
#pragma once

#include "cifar/config/train_config.h"
#include "cifar/train/run_env.h"
#include "cifar/train/train_result.h"

namespace cifar {

TrainResult train(const TrainConfig& config, const RunEnv& env = {});

}  // namespace cifar
