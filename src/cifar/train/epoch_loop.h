// epoch_loop.h: the loop of a training run's epochs, once the job's parts exist.
//
// For each epoch from the session's position: train_one_epoch (under the
// thread rule, with out-of-memory advice), evaluate (validation, if held
// out, and test; skipped on the epochs --eval-every passes over), record (the
// epoch line, the metrics row, TensorBoard, the checkpoints, best.pt). A stop
// request writes the checkpoint of the last completed step and throws
// Interrupted with the command that resumes.
#pragma once

#include <cstdint>

#include "cifar/platform/cpu_plan.h"
#include "cifar/report/run_outputs.h"
#include "cifar/resolve/recipe.h"
#include "cifar/resolve/run_spec.h"
#include "cifar/train/forecast.h"
#include "cifar/train/run_env.h"
#include "cifar/train/session.h"
#include "cifar/train/time_budget.h"
#include "cifar/train/train_result.h"

namespace cifar {

// Everything the epochs of one run share.
struct TrainingJob {
  const LoopSpec& loop;  // of the settings, the loop reads only this
  const StepSpec& step;
  const RunEnv& env;
  const Recipe& recipe;
  const RunSplits& data;
  const RunPaths& paths;
  TrainingSession& session;
  Distributed& dist;
  RunOutputs* outputs;  // null on ranks other than 0
  ThreadRule& threads;  // the count, re-read between steps (platform/cpu_plan.h)
  RunForecast& forecast;
  const TimeBudget& budget;  // --time (time_budget.h): inactive without it
  const EpochShape& shape;   // how every epoch is cut into steps
};

// Runs the epochs from job.session.position to --epochs; the result holds
// the metrics of the epochs this invocation ran.
TrainResult run_epochs(const TrainingJob& job, const torch::Device& device);

}  // namespace cifar
