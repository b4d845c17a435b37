// step_spec.h: what one training step follows, resolved.
//
// The step (train/step.h, and the CUDA-graph step of train/cuda_graph.h)
// takes this and nothing else of the settings: the precision --amp resolved
// to for the device and model (platform/precision.h), whether the recipe
// sums the batch's losses, and the step's settings as given
// (config/step_settings.h), where the recipe sets none of its own.
#pragma once

#include <optional>
#include <string>

#include "cifar/config/step_settings.h"
#include "cifar/core/types.h"
#include "cifar/platform/precision.h"

namespace cifar {

// A recipe's loss: its own label smoothing (unset: --label-smoothing's), and
// whether the batch's losses are summed (airbench's rates assume it) or averaged.
struct LossOptions {
  std::optional<double> label_smoothing;
  bool sum = false;
};

struct StepSpec {
  Precision precision = {};  // --amp resolved (platform/precision.h): never auto
  bool sum_loss = false;     // LossOptions::sum
  StepSettings settings;     // as given, the recipe's own values over them
  // What to change when the loss becomes NaN or inf (resolve/ignored_options.h).
  std::string non_finite_hint = {};
};

// The step of a run with these settings and this recipe loss, at `precision`.
inline StepSpec step_spec(const Precision& precision, const LossOptions& loss, StepSettings given) {
  if (loss.label_smoothing) given.label_smoothing = *loss.label_smoothing;
  return {.precision = precision, .sum_loss = loss.sum, .settings = given};
}

}  // namespace cifar
