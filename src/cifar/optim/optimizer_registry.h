// optimizer_registry.h: the optimisers --optimizer chooses from, one entry
// each, and what each reads and keeps.
//
// Like timm's create_optimizer: an entry names an optimiser, lists the
// options it reads (the others are ignored, with a warning), says what state
// it keeps in a checkpoint and whether a CUDA graph can capture its update,
// and builds it over one list of parameters. The recipe that uses --optimizer
// (classic) groups the parameters: every trainable one, at --lr on
// --schedule. The checks, --help and the warnings ask the entry, never the
// name. Adding an optimiser is its own file, one line in
// optimizer_registry.cpp's table and its test.
#pragma once

#include <torch/torch.h>

#include <memory>
#include <string>
#include <vector>

#include "cifar/optim/optimizer.h"

namespace cifar {

// The settings the options give an optimiser (its rate comes with each step).
struct OptimizerSettings {
  double momentum = 0.9;
  bool nesterov = false;
  double weight_decay = 0.0;
};

struct OptimizerEntry {
  std::string name;                   // --optimizer
  std::string help;                   // for --help: what it is
  std::vector<std::string> settings;  // the options it reads, without "--"
  std::string state;                  // what it keeps in a checkpoint, for the log
  // Its update takes the rate as a device scalar, so a CUDA graph can
  // capture it (--cuda-graph).
  bool graph_step = false;
  std::unique_ptr<Optimizer> (*make)(std::vector<torch::Tensor> params,
                                     const OptimizerSettings& settings) = nullptr;
};

// The entries, in the order --help lists them; the first is the default.
const std::vector<OptimizerEntry>& optimizer_registry();

// The entry called `name`; UsageError listing the known names otherwise.
const OptimizerEntry& optimizer_entry(const std::string& name);

// "sgd (...) or adamw (...)", for --help.
std::string optimizers_in_words();

// Every option some optimiser reads ("momentum", "weight-decay", ...).
std::vector<std::string> optimizer_settings();

}  // namespace cifar
