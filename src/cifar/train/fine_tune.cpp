// fine_tune.cpp: a new head, a frozen body, the body at a fraction of the rate.
#include "cifar/train/fine_tune.h"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <stdexcept>
#include <string>

#include "cifar/model/state_dict.h"

namespace cifar {
namespace {

// The recipe's groups with those left empty dropped (a frozen body leaves
// airbench94's filter and bias groups with nothing to train).
std::vector<ParamGroup> nonempty_groups(ParamGroups groups) {
  std::vector<ParamGroup> out;
  for (ParamGroup& g : std::move(groups).release()) {
    if (!g.params.empty()) out.push_back(std::move(g));
  }
  return out;
}

// The recipe's groups over the parameters `part` keeps trainable: the
// others leave training for the call (requires_grad false) and come back.
std::vector<ParamGroup> groups_of_part(const Recipe& recipe, ClassifierImpl& model,
                                       int64_t steps_per_epoch, const ModelEntry& entry,
                                       bool head) {
  std::vector<torch::Tensor> set_aside;
  for (const auto& item : model.named_parameters()) {
    torch::Tensor p = item.value();
    if (p.requires_grad() && is_head_tensor(entry, item.key()) != head) {
      p.requires_grad_(false);
      set_aside.push_back(p);
    }
  }
  std::vector<ParamGroup> groups = nonempty_groups(recipe.param_groups(model, steps_per_epoch));
  for (torch::Tensor& p : set_aside) p.requires_grad_(true);
  return groups;
}

}  // namespace

void copy_body(ClassifierImpl& loaded, ClassifierImpl& fresh, const ModelEntry& entry) {
  const TensorMap from = model_state_dict(loaded);
  TensorMap to = model_state_dict(fresh);
  torch::NoGradGuard no_grad;
  for (auto& [name, t] : to) {
    if (is_head_tensor(entry, name)) continue;
    const torch::Tensor& source = from.at(name);
    if (source.sizes() != t.sizes()) {
      throw std::logic_error(fmt::format("body tensor {} is [{}] loaded, [{}] in the new model",
                                         name, fmt::join(source.sizes(), ", "),
                                         fmt::join(t.sizes(), ", ")));
    }
    t.copy_(source);
  }
}

void freeze_body(ClassifierImpl& model, const ModelEntry& entry) {
  for (const auto& item : model.named_parameters()) {
    if (!is_head_tensor(entry, item.key())) item.value().requires_grad_(false);
  }
}

std::vector<std::shared_ptr<torch::nn::Module>> body_statistics_modules(ClassifierImpl& model,
                                                                        const ModelEntry& entry) {
  std::vector<std::shared_ptr<torch::nn::Module>> out;
  for (const auto& item : model.named_modules("", /*include_self=*/false)) {
    const bool in_head = item.key() == entry.head || item.key().starts_with(entry.head + ".");
    if (!in_head && !item.value()->named_buffers(/*recurse=*/false).is_empty()) {
      out.push_back(item.value());
    }
  }
  return out;
}

ParamGroups fine_tune_groups(const Recipe& recipe, ClassifierImpl& model, int64_t steps_per_epoch,
                             const ModelEntry& entry, double body_lr_scale) {
  if (body_lr_scale == 1)
    return ParamGroups(nonempty_groups(recipe.param_groups(model, steps_per_epoch)));
  std::vector<ParamGroup> groups = groups_of_part(recipe, model, steps_per_epoch, entry, true);
  for (ParamGroup& g : groups) {
    if (g.name == "all") g.name = "head";
  }
  for (ParamGroup& g : groups_of_part(recipe, model, steps_per_epoch, entry, false)) {
    g.name = g.name == "all" ? "body" : "body_" + g.name;
    g.schedule.base_lr *= body_lr_scale;
    groups.push_back(std::move(g));
  }
  return ParamGroups(std::move(groups));
}

}  // namespace cifar
