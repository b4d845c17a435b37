// optimizer_registry.cpp: the table of optimisers.
#include "cifar/optim/optimizer_registry.h"

#include <fmt/format.h>

#include <algorithm>

#include "cifar/core/errors.h"
#include "cifar/optim/optim.h"

namespace cifar {

OptimizerEntry adamw_entry();  // adamw.cpp

namespace {

OptimizerEntry sgd_entry() {
  return {
      .name = "sgd",
      .help = "SGD with --momentum, --nesterov, --weight-decay",
      .settings = {"lr", "momentum", "nesterov", "weight-decay"},
      .state = "momentum buffers",
      .graph_step = true,
      .make = [](std::vector<torch::Tensor> params,
                 const OptimizerSettings& s) -> std::unique_ptr<Optimizer> {
        return std::make_unique<Sgd>(
            std::move(params),
            SgdOptions().momentum(s.momentum).nesterov(s.nesterov).weight_decay(s.weight_decay));
      }};
}

std::string names_in_words() {
  std::string out;
  const auto& entries = optimizer_registry();
  for (size_t i = 0; i < entries.size(); ++i) {
    out += (i == 0 ? "" : i + 1 == entries.size() ? " or " : ", ") + entries[i].name;
  }
  return out;
}

}  // namespace

const std::vector<OptimizerEntry>& optimizer_registry() {
  // One line per optimiser; the first is the default.
  static const std::vector<OptimizerEntry> entries{
      sgd_entry(),
      adamw_entry(),
  };
  return entries;
}

const OptimizerEntry& optimizer_entry(const std::string& name) {
  const auto& entries = optimizer_registry();
  const auto it = std::ranges::find(entries, name, &OptimizerEntry::name);
  if (it == entries.end()) {
    throw UsageError(fmt::format("unknown --optimizer '{}': choose {}", name, names_in_words()));
  }
  return *it;
}

std::string optimizers_in_words() {
  std::string out;
  const auto& entries = optimizer_registry();
  for (size_t i = 0; i < entries.size(); ++i) {
    out += fmt::format("{}{} ({})",
                       i == 0                    ? ""
                       : i + 1 == entries.size() ? " or "
                                                 : ", ",
                       entries[i].name, entries[i].help);
  }
  return out;
}

std::vector<std::string> optimizer_settings() {
  std::vector<std::string> all;
  for (const auto& e : optimizer_registry()) {
    for (const auto& s : e.settings) {
      if (std::ranges::find(all, s) == all.end()) all.push_back(s);
    }
  }
  return all;
}

}  // namespace cifar
