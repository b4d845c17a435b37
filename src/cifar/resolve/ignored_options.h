// ignored_options.h: options that would do nothing in this run, said once.
//
// Some options do nothing for some models or devices (--stem for the net,
// --cuda-graph on a CPU), some cost more than they give here (--amp on the
// CPU), and a recipe sets some settings itself (Recipe::own_settings: e.g.
// airbench94's rates, schedule, loss and augmentation); each is said once, as
// a warning, before the run starts.
#pragma once

#include <torch/torch.h>

#include <string>

#include "cifar/config/train_config.h"
#include "cifar/resolve/recipe.h"

namespace cifar {

void warn_ignored(const TrainConfig& c, const Recipe& recipe, const std::string& model,
                  const torch::Device& device);

// What a run whose loss became NaN or inf can change, naming only options
// the recipe reads ("Lower --lr, add --warmup-epochs, or use --amp off"); a
// recipe that sets its own rates for another network than `model` points
// to --recipe classic.
std::string non_finite_hint(const Recipe& recipe, const std::string& model, AmpMode amp);

}  // namespace cifar
