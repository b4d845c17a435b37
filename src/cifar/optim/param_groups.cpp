// param_groups.cpp: named parameter groups, each with its optimiser and schedule.
#include "cifar/optim/param_groups.h"

#include <fmt/format.h>

#include <algorithm>
#include <set>
#include <stdexcept>

namespace cifar {

ParamGroups::ParamGroups(std::vector<ParamGroup> groups) : groups_(std::move(groups)) {
  if (groups_.empty()) throw std::logic_error("a recipe needs at least one parameter group");
  for (const auto& g : groups_) {
    TORCH_CHECK(g.schedule.lr > 0, "parameter group ", g.name,
                ": learning rate must be positive, got ", g.schedule.lr);
  }
}

void ParamGroups::zero_grad() {
  for (auto& g : groups_) g.optimizer->zero_grad();
}

void ParamGroups::step(int64_t global_step) {
  for (auto& g : groups_) {
    const double lr = lr_at(g.schedule, global_step);
    // A rate that has reached zero leaves the group as it is, momentum and
    // weight decay included (airbench's whitening bias after its 3 epochs).
    if (lr > 0) g.optimizer->step(lr);
  }
  freeze_done(global_step + 1);
}

void ParamGroups::freeze_done(int64_t global_step) {
  for (auto& g : groups_) {
    if (!g.freeze_when_done || lr_at(g.schedule, global_step) > 0) continue;
    for (auto& p : g.params) p.requires_grad_(false);
  }
}

void ParamGroups::set_run_epochs(int64_t epochs) {
  for (auto& g : groups_) {
    if (!g.own_span) g.schedule.epochs = epochs;
  }
}

double ParamGroups::lr(int64_t global_step) const {
  return lr_at(groups_.front().schedule, global_step);
}

void ParamGroups::device_step(const std::vector<torch::Tensor>& rates) {
  TORCH_CHECK(rates.size() == groups_.size(),
              "device_step takes one rate per group: ", groups_.size(), " groups, ", rates.size(),
              " rates (ReplayedStep makes them)");
  const std::vector<bool> trains = training();
  for (size_t i = 0; i < groups_.size(); ++i) {
    if (trains[i]) groups_[i].optimizer->device_rate_step(rates[i]);
  }
}

std::vector<double> ParamGroups::rates(int64_t global_step) const {
  std::vector<double> out;
  for (const auto& g : groups_) out.push_back(lr_at(g.schedule, global_step));
  return out;
}

std::vector<torch::Tensor> ParamGroups::state_tensors() const {
  std::vector<torch::Tensor> out;
  for (const auto& g : groups_) {
    for (auto& t : g.optimizer->state_tensors()) out.push_back(std::move(t));
  }
  return out;
}

std::vector<bool> ParamGroups::training() const {
  std::vector<bool> out;
  for (const auto& g : groups_) {
    out.push_back(std::ranges::any_of(g.params, [](const auto& p) { return p.requires_grad(); }));
  }
  return out;
}

std::string ParamGroups::describe() const {
  std::string out;
  for (const auto& g : groups_) {
    if (!out.empty()) out += ", ";
    out += fmt::format("{} {} ({} lr {:g})", g.name, g.params.size(), g.optimizer->name(),
                       g.schedule.lr);
  }
  return out;
}

void ParamGroups::save(torch::serialize::OutputArchive& archive) const {
  if (groups_.size() == 1) return groups_.front().optimizer->save(archive);
  for (const auto& g : groups_) {
    torch::serialize::OutputArchive group;
    g.optimizer->save(group);
    archive.write("group_" + g.name, group);
  }
}

void ParamGroups::load(torch::serialize::InputArchive& archive) {
  if (groups_.size() == 1) return groups_.front().optimizer->load(archive);
  for (auto& g : groups_) {
    torch::serialize::InputArchive group;
    if (!archive.try_read("group_" + g.name, group)) {
      throw std::runtime_error(fmt::format(
          "the optimizer state has no parameter group '{}': the checkpoint was written by "
          "another recipe (resume it with the --recipe it was trained with)",
          g.name));
    }
    g.optimizer->load(group);
  }
}

ParamGroups one_group(std::vector<torch::Tensor> params, std::unique_ptr<Optimizer> optimizer,
                      const ScheduleOptions& schedule) {
  std::vector<ParamGroup> groups;
  groups.push_back({.name = "all",
                    .params = std::move(params),
                    .optimizer = std::move(optimizer),
                    .schedule = schedule});
  return ParamGroups(std::move(groups));
}

ParamGroups one_sgd_group(std::vector<torch::Tensor> params, const SgdOptions& sgd,
                          const ScheduleOptions& schedule) {
  auto sgd_optimizer = std::make_unique<Sgd>(params, sgd);
  return one_group(std::move(params), std::move(sgd_optimizer), schedule);
}

void check_covers(const ParamGroups& groups, const torch::nn::Module& model) {
  std::set<const void*> grouped;
  for (const auto& g : groups.groups()) {
    for (const auto& p : g.params) {
      if (!grouped.insert(p.unsafeGetTensorImpl()).second) {
        throw std::logic_error(
            fmt::format("a parameter is in two groups (the second: {})", g.name));
      }
    }
  }
  for (const auto& item : model.named_parameters()) {
    const bool in_group = grouped.erase(item.value().unsafeGetTensorImpl()) > 0;
    if (item.value().requires_grad() && !in_group) {  // (checked before any step)
      throw std::logic_error(fmt::format("trainable parameter {} is in no group", item.key()));
    }
    if (!item.value().requires_grad() && in_group) {
      throw std::logic_error(fmt::format("frozen parameter {} is in a group", item.key()));
    }
  }
  if (!grouped.empty()) throw std::logic_error("a group holds a tensor that is not the model's");
}

}  // namespace cifar
