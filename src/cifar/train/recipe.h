// recipe.h: how a model is trained, as a short list of named choices.
//
// A recipe composes the training job's parts; it never forks the loop:
//   network        the model it trains by default
//   param_groups   which parameters go to which optimiser at which rates
//   augmentation   what each epoch does to the training images
//   loss           label smoothing, and whether the batch's losses are
//                  averaged or summed (the rates are tuned for one or the other)
//   drop_last      whether an epoch drops its last partial batch
//   whitening      images used to initialise a whitening layer (0: none)
//   own_settings   the options it sets itself (given ones are ignored, with
//                  a warning: ignored_options.h)
//
//   classic     the tutorial's way: SGD on every parameter with --lr,
//               --momentum, --nesterov, --weight-decay, --schedule; --augment
//               crops and flips; --label-smoothing; batch losses averaged
//   airbench94  Keller Jordan's airbench94_muon (94% on CIFAR-10 with about
//               0.3 PFLOP of training): see recipe.cpp for its numbers
#pragma once

#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "cifar/config/train_config.h"
#include "cifar/data/augment.h"
#include "cifar/model/models.h"
#include "cifar/optim/param_groups.h"
#include "cifar/train/step.h"

namespace cifar {

struct Recipe {
  std::string name;
  std::string network;
  // The groups for `model`, given the steps of one epoch.
  std::function<ParamGroups(ClassifierImpl& model, int64_t steps_per_epoch)> param_groups;
  Augmentation augmentation;
  LossOptions loss;
  bool drop_last = false;
  int64_t whitening_images = 0;
  std::vector<std::string> own_settings;  // option names, without "--"
};

// The recipe --recipe names, with the settings it takes from `config`.
Recipe make_recipe(const TrainConfig& config);

}  // namespace cifar
