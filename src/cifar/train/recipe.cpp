// recipe.cpp: the recipes, each at one glance.
#include "cifar/train/recipe.h"

#include <cmath>
#include <string>

#include "cifar/optim/muon.h"

namespace cifar {
namespace {

// --- classic: SGD on every trainable parameter ------------------------------------

Recipe classic(const TrainConfig& c) {
  return {
      .name = "classic",
      .network = "net",
      .param_groups =
          [c](ClassifierImpl& model, int64_t steps_per_epoch) {
            std::vector<torch::Tensor> params;
            for (const auto& p : model.parameters()) {
              if (p.requires_grad()) params.push_back(p);
            }
            return one_sgd_group(
                params,
                SgdOptions().momentum(c.momentum).nesterov(c.nesterov).weight_decay(c.weight_decay),
                {.schedule = c.schedule,
                 .base_lr = c.lr,
                 .warmup_epochs = c.warmup_epochs,
                 .epochs = c.epochs,
                 .steps_per_epoch = steps_per_epoch});
          },
      .augmentation = c.augment ? kCropFlip : kNoAugmentation,
      .loss = {.label_smoothing = c.label_smoothing, .sum = false},
      .drop_last = false,
      .whitening_images = 0,
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
  double decay_per_image = 2e-6;    // weight decay = this x batch size, over each lr
  double whiten_bias_epochs = 3;    // the whitening bias trains this long
  double label_smoothing = 0.2;     // cross-entropy summed over the batch
  int64_t whitening_images = 5000;  // the first N training images set the whitening
};

ParamGroups airbench_groups(const Airbench94& a, const TrainConfig& c, ClassifierImpl& model,
                            int64_t steps_per_epoch) {
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
                           .base_lr = lr,
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
  groups.push_back({.name = "filters",
                    .params = filters,
                    .optimizer = std::make_unique<Muon>(
                        filters, MuonOptions().momentum(a.muon_momentum).nesterov(true)),
                    .schedule = linear(a.filter_lr, epochs)});
  groups.push_back({.name = "whiten_bias",
                    .params = whiten_bias,
                    .optimizer = sgd(whiten_bias, a.bias_lr),
                    .schedule = linear(a.bias_lr, a.whiten_bias_epochs),
                    .freeze_when_done = true});
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

Recipe airbench94(const TrainConfig& c) {
  const Airbench94 a;
  return {
      .name = "airbench94",
      .network = "airbench94",
      .param_groups = [a, c](ClassifierImpl& model,
                             int64_t steps) { return airbench_groups(a, c, model, steps); },
      .augmentation = kAirbenchAugmentation,
      .loss = {.label_smoothing = a.label_smoothing, .sum = true},
      .drop_last = true,
      .whitening_images = a.whitening_images,
      .own_settings = {"lr", "momentum", "nesterov", "weight-decay", "schedule", "warmup-epochs",
                       "label-smoothing", "augment"},
  };
}

}  // namespace

Recipe make_recipe(const TrainConfig& config) {
  switch (config.recipe) {
    case RecipeName::kClassic:
      break;
    case RecipeName::kAirbench94:
      return airbench94(config);
  }
  return classic(config);
}

}  // namespace cifar
