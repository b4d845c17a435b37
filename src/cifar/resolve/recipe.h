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
// The recipes are a registry (like timm's): an entry names a recipe, says
// what it can do (--cuda-graph, --resolution-schedule, --tta) and makes it
// from the settings. --recipe, --help and the checks ask the entry, never the
// name. Adding a recipe is its own file, one line in recipe.cpp's table and
// its test.
//
//   classic     the tutorial's way: --optimizer (SGD by default, with --lr,
//               --momentum, --nesterov, --weight-decay) on every parameter,
//               --schedule; --augment crops and flips; --label-smoothing;
//               batch losses averaged
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
#include "cifar/platform/precision.h"
#include "cifar/resolve/step_spec.h"

namespace cifar {

struct Recipe {
  std::string name;
  std::string network;
  // The groups for `model`, given the steps of one epoch.
  std::function<ParamGroups(ClassifierImpl& model, int64_t steps_per_epoch)> param_groups;
  Augmentation augmentation;
  LossOptions loss;
  bool drop_last = false;
  // A fresh model's init_from_images (its registry entry: airbench94's
  // whitening) sees the first N training images; 0: none.
  int64_t init_images = 0;
  std::vector<std::string> own_settings;  // option names, without "--"
};

struct RecipeEntry {
  std::string name;     // --recipe
  std::string help;     // for --help
  std::string network;  // the model it trains unless --model says otherwise
  // What it can follow: a resolution schedule (with a model that takes any
  // size); test-time augmentation when evaluating. (A CUDA graph captures
  // every recipe's step: train/replayed_step.h.)
  bool resolution_schedule = true;
  bool tta = true;
  Recipe (*make)(const TrainConfig& config, const Precision& precision) = nullptr;
};

// The entries, in the order --help lists them.
const std::vector<RecipeEntry>& recipe_registry();

// The entry called `name`; UsageError listing the known names otherwise.
const RecipeEntry& recipe_entry(const std::string& name);

// "classic (...) or airbench94 (...)", for --help.
std::string recipes_in_words();

// Refuses (UsageError) settings the recipe or the model it will train
// cannot follow: an unknown --recipe, --cuda-graph, --resolution-schedule
// with a model sized for 32x32 images, --tta. Called with validate(), before
// anything starts, on every device (the CPU, where --cuda-graph only warns,
// must not hide what a GPU run would refuse).
void check_recipe_settings(const TrainConfig& config);

// The recipe --recipe names, with the settings it takes from `config` and
// the run's resolved precision (Muon's Newton-Schulz type follows it).
Recipe make_recipe(const TrainConfig& config, const Precision& precision = {});

}  // namespace cifar
