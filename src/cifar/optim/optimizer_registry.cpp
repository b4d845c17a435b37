// optimizer_registry.cpp: the table of optimisers.
#include "cifar/optim/optimizer_registry.h"

#include <fmt/format.h>

#include <algorithm>
#include <stdexcept>

#include "cifar/core/registry.h"
#include "cifar/optim/optim.h"

namespace cifar {

OptimizerEntry adamw_entry();  // adamw.cpp
OptimizerEntry lion_entry();   // lion.cpp

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

}  // namespace

const std::vector<OptimizerEntry>& optimizer_registry() {
  // One line per optimiser; the first is the default.
  static const std::vector<OptimizerEntry> entries{
      sgd_entry(),
      adamw_entry(),
      lion_entry(),
  };
  return entries;
}

const OptimizerEntry& optimizer_entry(const std::string& name) {
  if (const OptimizerEntry* entry = find_entry(optimizer_registry(), name)) return *entry;
  throw std::invalid_argument(unknown_name("--optimizer", name, entry_names(optimizer_registry())));
}

std::string optimizers_in_words() {
  return entries_in_words(optimizer_registry());
}

bool OptimizerEntry::reads(const std::string& option) const {
  return std::ranges::find(settings, option) != settings.end() ||
         std::ranges::find(hyperparameters, option, &Hyperparameter::name) != hyperparameters.end();
}

std::vector<std::string> optimizer_settings() {
  std::vector<std::string> all;
  for (const auto& e : optimizer_registry()) {
    for (const auto& s : e.settings) {
      if (std::ranges::find(all, s) == all.end()) all.push_back(s);
    }
  }
  for (const Hyperparameter& h : optimizer_hyperparameters()) all.push_back(h.name);
  return all;
}

const std::vector<Hyperparameter>& optimizer_hyperparameters() {
  static const std::vector<Hyperparameter> all = [] {
    std::vector<Hyperparameter> out;
    for (const auto& e : optimizer_registry()) {
      for (Hyperparameter h : e.hyperparameters) {
        const std::string its_default = fmt::format("{}'s {:g}", e.name, h.value);
        auto same = std::ranges::find(out, h.name, &Hyperparameter::name);
        if (same == out.end()) {
          h.flag = "--" + h.name;
          h.defaults = "the optimiser's: " + its_default;
          out.push_back(h);
        } else if (same->help != h.help || same->min != h.min || same->max != h.max ||
                   same->min_open != h.min_open || same->max_open != h.max_open) {
          throw std::logic_error(fmt::format(
              "optimiser {} declares --{} unlike an earlier optimiser: one name, one meaning",
              e.name, h.name));
        } else {
          same->defaults += ", " + its_default;
        }
      }
    }
    return out;
  }();
  return all;
}

std::map<std::string, std::optional<double>> optimizer_args_unset() {
  std::map<std::string, std::optional<double>> args;
  for (const Hyperparameter& h : optimizer_hyperparameters()) args[h.name] = std::nullopt;
  return args;
}

std::map<std::string, double> given_args(const std::map<std::string, std::optional<double>>& args) {
  std::map<std::string, double> given;
  for (const auto& [name, value] : args) {
    if (value) given[name] = *value;
  }
  return given;
}

}  // namespace cifar
