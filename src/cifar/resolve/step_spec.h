// step_spec.h: what one training step follows, resolved.
//
// The step (train/step.h, and the CUDA-graph step of train/cuda_graph.h)
// takes this and nothing else of the settings: the precision --amp resolved
// to for the device and model (platform/precision.h), and the recipe's loss
// (resolve/recipe.h: its own, or --label-smoothing's for classic).
#pragma once

#include "cifar/core/types.h"

namespace cifar {

struct LossOptions {
  double label_smoothing = 0.0;
  bool sum = false;  // sum the batch's losses (airbench's rates assume it), else average
};

struct StepSpec {
  AmpMode amp = AmpMode::kOff;  // resolved: never kAuto
  LossOptions loss;
};

}  // namespace cifar
