// recipe.cpp: the recipes, each at one glance.
#include "cifar/resolve/recipe.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <string>

#include "cifar/core/errors.h"
#include "cifar/core/registry.h"
#include "cifar/model/model_registry.h"
#include "cifar/optim/muon.h"
#include "cifar/optim/optimizer_registry.h"

namespace cifar {
namespace {

// --- classic: --optimizer (SGD by default) on every trainable parameter -----------

Recipe classic(const TrainConfig& c, const Precision& /*precision*/) {
  return {
      .name = {},
      .network = {},
      .param_groups =
          [c](ClassifierImpl& model, int64_t steps_per_epoch) {
            std::vector<torch::Tensor> params;
            for (const auto& p : model.parameters()) {
              if (p.requires_grad()) params.push_back(p);
            }
            const OptimizerSettings settings{.momentum = c.momentum,
                                             .nesterov = c.nesterov,
                                             .weight_decay = c.weight_decay,
                                             .declared = given_args(c.optimizer_args)};
            return one_group(params, optimizer_entry(c.optimizer).make(params, settings),
                             {.schedule = c.schedule,
                              .lr = c.lr,
                              .warmup_epochs = c.warmup_epochs,
                              .epochs = c.epochs,
                              .steps_per_epoch = steps_per_epoch});
          },
      .augmentation = c.augment ? kCropFlip : kNoAugmentation,
      .loss = {.label_smoothing = std::nullopt, .sum = false},  // --label-smoothing's
      .drop_last = false,
      .init_images = 0,
      .own_settings = {},
  };
}

// --- airbench94: airbench94_muon.py's choices, number for number --------------------

struct Airbench94 {
  double filter_lr = 0.24;  // Muon, on the 3x3 conv filters
  double muon_momentum = 0.6;
  double bias_lr = 0.053;  // SGD, on the whitening and BatchNorm biases
  double head_lr = 0.67;   // SGD, on the linear head
  double sgd_momentum = 0.85;
  double decay_per_image = 2e-6;  // weight decay = this x batch size, over each lr
  double whiten_bias_epochs = 3;  // the whitening bias trains this long
  double label_smoothing = 0.2;   // cross-entropy summed over the batch
  int64_t init_images = 5000;     // the first N training images set the whitening
};

ParamGroups airbench_groups(const Airbench94& a, const TrainConfig& c, c10::ScalarType ns_dtype,
                            ClassifierImpl& model, int64_t steps_per_epoch) {
  std::vector<torch::Tensor> filters, whiten_bias, norm_biases, head;
  for (const auto& item : model.named_parameters()) {
    const torch::Tensor& p = item.value();
    const std::string& name = item.key();
    if (!p.requires_grad()) continue;  // whiten.weight, BatchNorm weights
    if (p.dim() == 4) {
      filters.push_back(p);
    } else if (name == "whiten.bias") {
      whiten_bias.push_back(p);
    } else if (name.find("norm") != std::string::npos) {
      norm_biases.push_back(p);
    } else {
      head.push_back(p);
    }
  }
  const double wd = a.decay_per_image * static_cast<double>(c.batch_size);
  auto linear = [&](double lr, double epochs) {
    return ScheduleOptions{.schedule = Schedule::kLinear,
                           .lr = lr,
                           .warmup_epochs = 0,
                           .epochs = static_cast<int64_t>(std::ceil(epochs)),
                           .steps_per_epoch = steps_per_epoch};
  };
  auto sgd = [&](const std::vector<torch::Tensor>& params, double lr) {
    return std::make_unique<Sgd>(
        params, SgdOptions().momentum(a.sgd_momentum).nesterov(true).weight_decay(wd / lr));
  };
  const auto epochs = static_cast<double>(c.epochs);
  std::vector<ParamGroup> groups;
  groups.push_back(
      {.name = "filters",
       .params = filters,
       .optimizer = std::make_unique<Muon>(
           filters, MuonOptions().momentum(a.muon_momentum).nesterov(true).ns_dtype(ns_dtype)),
       .schedule = linear(a.filter_lr, epochs)});
  groups.push_back({.name = "whiten_bias",
                    .params = whiten_bias,
                    .optimizer = sgd(whiten_bias, a.bias_lr),
                    .schedule = linear(a.bias_lr, a.whiten_bias_epochs),
                    .freeze_when_done = true,
                    .own_span = true});
  groups.push_back({.name = "norm_biases",
                    .params = norm_biases,
                    .optimizer = sgd(norm_biases, a.bias_lr),
                    .schedule = linear(a.bias_lr, epochs)});
  groups.push_back({.name = "head",
                    .params = head,
                    .optimizer = sgd(head, a.head_lr),
                    .schedule = linear(a.head_lr, epochs)});
  return ParamGroups(std::move(groups));
}

Recipe airbench94(const TrainConfig& c, const Precision& precision) {
  const Airbench94 a;
  return {
      .name = {},
      .network = {},
      .param_groups = [a, c, ns = precision.matmul_dtype](
                          ClassifierImpl& model,
                          int64_t steps) { return airbench_groups(a, c, ns, model, steps); },
      .augmentation = kAirbenchAugmentation,
      .loss = {.label_smoothing = a.label_smoothing, .sum = true},
      .drop_last = true,
      .init_images = a.init_images,
      .own_settings = {"optimizer", "lr", "momentum", "nesterov", "weight-decay", "schedule",
                       "warmup-epochs", "label-smoothing", "augment"},
  };
}

}  // namespace

const std::vector<RecipeEntry>& recipe_registry() {
  // One line per recipe.
  static const std::vector<RecipeEntry> entries{
      {.name = "classic",
       .help = "--optimizer on all parameters, the tutorial's way",
       .network = "net",
       .make = classic},
      {.name = "airbench94",
       .help = "Muon + SGD, the speedrun's schedule and augmentation",
       .network = "airbench94",
       .make = airbench94},
  };
  return entries;
}

const RecipeEntry& recipe_entry(const std::string& name) {
  if (const RecipeEntry* entry = find_entry(recipe_registry(), name)) return *entry;
  throw UsageError(unknown_name("--recipe", name, entry_names(recipe_registry())));
}

std::string recipes_in_words() {
  return entries_in_words(recipe_registry());
}

void check_recipe_settings(const TrainConfig& config) {
  const RecipeEntry& recipe = recipe_entry(config.recipe);
  const std::vector<std::string> own = make_recipe(config).own_settings;
  if (config.cuda_graph && !optimizer_entry(config.optimizer).graph_step &&
      std::ranges::find(own, "optimizer") == own.end()) {
    throw UsageError(fmt::format(
        "--cuda-graph captures the update of --optimizer {1} (and the airbench94 recipe's), "
        "not that of --optimizer {0}: drop --cuda-graph, or use --optimizer {1}",
        config.optimizer, optimizer_registry().front().name));
  }
  if (config.tta > 0 && !recipe.tta) {
    throw UsageError(
        fmt::format("the {} recipe cannot evaluate with --tta: drop --tta", recipe.name));
  }
  if (config.resolution_schedule.empty()) return;
  if (!recipe.resolution_schedule) {
    throw UsageError(
        fmt::format("the {} recipe cannot follow --resolution-schedule: drop it", recipe.name));
  }
  // The model the run will train, where the settings say (a checkpoint or
  // weights file names its own, checked once loaded: resolve/run_spec.h).
  const bool fresh = config.resume.empty() && config.init_weights.empty() && !config.pretrained;
  const std::string model = !config.model.empty() ? config.model : fresh ? recipe.network : "";
  if (!model.empty() && !model_entry(model).any_image_size()) {
    const int64_t side = model_entry(model).image_size;
    throw UsageError(fmt::format(
        "--resolution-schedule needs a model that takes any image size; {}'s first linear layer "
        "is sized for {}x{} images: drop --resolution-schedule or choose --model",
        model, side, side));
  }
}

Recipe make_recipe(const TrainConfig& config, const Precision& precision) {
  const RecipeEntry& entry = recipe_entry(config.recipe);
  Recipe recipe = entry.make(config, precision);
  recipe.name = entry.name;
  recipe.network = entry.network;
  return recipe;
}

}  // namespace cifar
