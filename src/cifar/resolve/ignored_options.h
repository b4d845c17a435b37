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

}  // namespace cifar
