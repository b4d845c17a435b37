// step_settings.h: the settings a training step reads as the user gave them.
//
// TrainConfig holds them (TrainConfig::step; config/option_tables.h binds
// each field to its option, from which the command line, the config file,
// the checks and the saved config.toml follow); resolve/ hands them to the
// step whole (StepSpec::settings, resolve/step_spec.h), a recipe's own value
// over the given one where it sets one (airbench94's label smoothing); the
// step (train/step.cpp) reads them. A new setting of the step is a field
// here, its option's row and its use.
#pragma once

namespace cifar {

struct StepSettings {
  double label_smoothing = 0.0;  // cross-entropy label smoothing, [0, 1)

  bool operator==(const StepSettings&) const = default;
};

}  // namespace cifar
