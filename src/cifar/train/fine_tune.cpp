// fine_tune.cpp: a new head, a frozen body, the body at a fraction of the rate.
#include "cifar/train/fine_tune.h"

#include <string>

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
    g.schedule.lr *= body_lr_scale;
    groups.push_back(std::move(g));
  }
  return ParamGroups(std::move(groups));
}

}  // namespace cifar
