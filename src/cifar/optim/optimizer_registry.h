// optimizer_registry.h: the optimisers --optimizer chooses from, one entry
// each, and what each reads and keeps.
//
// Like timm's create_optimizer: an entry names an optimiser, lists the
// options it reads (the others are ignored, with a warning), says what state
// it keeps in a checkpoint and whether a CUDA graph can capture its update,
// and builds it over one list of parameters. Beyond the shared settings
// (--momentum, --nesterov, --weight-decay) an entry declares the numbers it
// reads as Hyperparameters (timm's has_betas, has_eps as values): each
// becomes an option, --<name>, declared once for every optimiser that
// reads it (config/option_tables.h), saved in config.toml and warned about
// when the chosen optimiser does not read it. The recipe that uses --optimizer
// (classic) groups the parameters: every trainable one, at --lr on
// --schedule. The checks, --help and the warnings ask the entry, never the
// name. Adding an optimiser is its own file, one line in
// optimizer_registry.cpp's table and its test.
#pragma once

#include <torch/torch.h>

#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "cifar/optim/optimizer.h"

namespace cifar {

// A number an optimiser reads, declared by its entry. A name means one
// thing (its help and range) for every optimiser that declares it; each
// has its own default (timm's --opt-betas: unset, the optimiser's).
struct Hyperparameter {
  std::string name;  // the option without "--", PyTorch's keyword where it has one: "eps"
  std::string help;
  double value = 0;  // its default for this optimiser
  double min = 0, max = 1;
  bool min_open = false, max_open = false;  // min, max themselves not allowed
  // Filled by optimizer_hyperparameters(): "--" + name, and each declaring
  // optimiser's default in words ("adamw's 0.999"), for --help.
  std::string flag = {};
  std::string defaults = {};
};

// The help of the names several optimisers declare: one name, one meaning.
inline constexpr const char* kBeta1Help =
    "the first decay, PyTorch's betas[0] (AdamW: of the gradients' average; Lion: of the "
    "update's interpolation)";
inline constexpr const char* kBeta2Help =
    "the second decay, PyTorch's betas[1] (AdamW: of the squared gradients' average; Lion: of "
    "its momentum)";

// The settings the options give an optimiser (its rate comes with each step).
struct OptimizerSettings {
  double momentum = 0.9;
  bool nesterov = false;
  double weight_decay = 0.0;
  // The declared hyperparameters given, by name ("beta2" -> 0.95); one
  // missing here takes this optimiser's default.
  std::map<std::string, double> declared = {};

  double get(const Hyperparameter& h) const {
    const auto it = declared.find(h.name);
    return it == declared.end() ? h.value : it->second;
  }
};

struct OptimizerEntry {
  std::string name;                                  // --optimizer
  std::string help;                                  // for --help: what it is
  std::vector<std::string> settings;                 // the shared options it reads, without "--"
  std::vector<Hyperparameter> hyperparameters = {};  // the numbers it declares
  std::string state;                                 // what it keeps in a checkpoint, for the log
  // Its update takes the rate as a device scalar, so a CUDA graph can
  // capture it (--cuda-graph).
  bool graph_step = false;
  std::unique_ptr<Optimizer> (*make)(std::vector<torch::Tensor> params,
                                     const OptimizerSettings& settings) = nullptr;

  // Whether it reads the option `name` (without "--"): a setting or a hyperparameter.
  bool reads(const std::string& name) const;
};

// The entries, in the order --help lists them; the first is the default.
const std::vector<OptimizerEntry>& optimizer_registry();

// The entry called `name`, a name checked before: std::invalid_argument
// listing the known names otherwise (config/ refuses the user's --optimizer).
const OptimizerEntry& optimizer_entry(const std::string& name);

// "sgd (...) or adamw (...)", for --help.
std::string optimizers_in_words();

// Every option some optimiser reads ("momentum", "weight-decay", "beta2", ...).
std::vector<std::string> optimizer_settings();

// Every hyperparameter some optimiser declares, once each, in the registry's
// order; std::logic_error where two entries declare one name with another
// help or range.
const std::vector<Hyperparameter>& optimizer_hyperparameters();

// Every declared hyperparameter's name, unset: what the options start from.
std::map<std::string, std::optional<double>> optimizer_args_unset();

// The given values of `args` (optimizer_args), for OptimizerSettings::declared.
std::map<std::string, double> given_args(const std::map<std::string, std::optional<double>>& args);

}  // namespace cifar
