// session.h: the model being trained, what updates it, and where the run is.
//
// A session is built from a plan and a recipe: the model (fresh and seeded,
// or the one the plan loaded), moved to the device; a fresh airbench model's
// whitening layer set from the first training images; the recipe's parameter
// groups with their optimisers (their state restored on --resume); the
// gradient averager over the processes; the loss scaler (enabled for --amp
// fp16, its scale restored on --resume); the position in the run (epoch,
// step, global step) and the fixed part of every checkpoint header.
#pragma once

#include <cstdint>
#include <memory>
#include <string>

#include "cifar/dist/distributed.h"
#include "cifar/dist/grad_averager.h"
#include "cifar/io/checkpoint.h"
#include "cifar/optim/grad_scaler.h"
#include "cifar/optim/param_groups.h"
#include "cifar/resolve/recipe.h"
#include "cifar/resolve/run_spec.h"
#include "cifar/train/epoch.h"
#include "cifar/train/extension.h"
#include "cifar/train/step.h"

namespace cifar {

struct TrainingSession {
  Classifier model;
  std::unique_ptr<ParamGroups> groups;
  std::unique_ptr<GradientAverager> averager;
  std::unique_ptr<GradScaler> scaler;
  std::unique_ptr<Learner> learner;        // the four above, and the process group
  std::unique_ptr<Extensions> extensions;  // what follows each step (extension.h)
  EpochPosition position;                  // where the next epoch starts
  CheckpointInfo info;                     // the header of this run's checkpoints

  // The checkpoint of the model, optimisers, loss scaler and extensions now,
  // with `info`'s position.
  std::string checkpoint_bytes() const;
  // The model the run evaluates and saves: the trained one, or an
  // extension's stand-in (--ema's average).
  ClassifierImpl& shown_model() const;
  // After each optimiser step.
  void after_step() const { extensions->after_step(); }
};

// The session of `spec`'s run (its model source, recipe, settings and
// epochs' shape), on `device`.
TrainingSession make_session(const RunSpec& spec, Distributed& dist, const torch::Device& device);

}  // namespace cifar
