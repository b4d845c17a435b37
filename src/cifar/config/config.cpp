// config.cpp: the CLI, checks and TOML derived from the four tools' option
// tables (option_tables.h).
//
// A table hands every option, with its field, to a visitor
// (option_visitors.h): OptionDeclarer declares it on a CLI11 app,
// RangeChecker checks a filled-in config, TomlWriter writes it, RoleLister
// lists what each setting is to a run.
#include "cifar/config/config.h"

#include <fmt/format.h>

#include <CLI/CLI.hpp>
#include <limits>
#include <type_traits>

#include "cifar/config/option_tables.h"
#include "cifar/core/errors.h"
#include "cifar/core/file_identity.h"

namespace cifar {
using namespace options;

RecipeName parse_recipe(const std::string& text) {
  if (text == "classic") return RecipeName::kClassic;
  if (text == "airbench94") return RecipeName::kAirbench94;
  throw UsageError(fmt::format("unknown --recipe '{}': choose classic or airbench94", text));
}

std::string to_string(RecipeName recipe) {
  return recipe == RecipeName::kAirbench94 ? "airbench94" : "classic";
}

// The settings as they will be saved: the model the run really trains, and
// absolute paths, so that config.toml resumes the run from any folder.
TrainConfig resolved_settings(const TrainConfig& c, const std::string& model, ResNetStem stem,
                              const std::filesystem::path& run_dir,
                              const std::filesystem::path& checkpoint) {
  TrainConfig r = c;
  r.model = model;
  r.stem = stem;
  r.data_dir = std::filesystem::absolute(c.data_dir).lexically_normal().string();
  r.run_dir = std::filesystem::absolute(run_dir).lexically_normal().string();
  r.checkpoint = std::filesystem::absolute(checkpoint).lexically_normal().string();
  return r;
}

// What TensorBoard's HPARAMS tab shows of a run.
std::vector<HParam> hparams_of(const TrainConfig& c) {
  return {{"recipe", to_string(c.recipe)},
          {"model", c.model},
          {"batch_size", static_cast<double>(c.batch_size)},
          {"lr", c.lr},
          {"momentum", c.momentum},
          {"weight_decay", c.weight_decay},
          {"epochs", static_cast<double>(c.epochs)},
          {"augment", c.augment},
          {"seed", static_cast<double>(c.seed)}};
}

void add_train_options(CLI::App& app, TrainConfig& config) {
  train_options(config, OptionDeclarer{app});
}

void validate(const TrainConfig& config) {
  train_options(config, RangeChecker{.toml = true});
  if (!config.init_weights.empty() && !config.resume.empty()) {
    throw UsageError("--init-weights and --resume both say where the model comes from: give one");
  }
  if (config.nesterov && config.momentum == 0) {
    throw UsageError(
        "--nesterov needs --momentum above 0 (Nesterov momentum without momentum is plain SGD)");
  }
  if (config.amp == AmpMode::kFp16 && config.cuda_graph) {
    // Refused, not quietly run eagerly: --cuda-graph is asked for speed, and
    // the other way to get the graph (bf16) is one flag away.
    throw UsageError(
        "--amp fp16 cannot be used with --cuda-graph: whether a step is skipped for inf/NaN "
        "gradients is decided on the host, which a captured graph cannot do; use --amp bf16 "
        "with --cuda-graph (no loss scaling needed), or drop --cuda-graph");
  }
  if (config.recipe == RecipeName::kAirbench94 && config.cuda_graph) {
    // Refused on every device and before anything starts: the CPU, where
    // --cuda-graph only warns, must not hide what a GPU run would refuse.
    throw UsageError(
        "--cuda-graph captures one SGD parameter group (the classic recipe); the airbench94 "
        "recipe trains four (Muon on the filters, SGD on the biases and the head), which the "
        "graph cannot run yet: drop --cuda-graph, or use --recipe classic");
  }
  if (!config.resolution_schedule.empty()) {
    if (config.cuda_graph) {
      throw UsageError(
          "--resolution-schedule changes the images' size between epochs, which a captured CUDA "
          "graph (fixed shapes) cannot follow: drop --cuda-graph or --resolution-schedule");
    }
    const bool net = config.model == "net" || (config.model.empty() && config.resume.empty() &&
                                               config.recipe == RecipeName::kClassic);
    if (net) {
      throw UsageError(
          "--resolution-schedule needs a model that takes any image size (airbench94, "
          "resnet18); net's first linear layer is sized for 32x32 images: drop "
          "--resolution-schedule or choose --model");
    }
  }
}

std::string to_toml(const TrainConfig& config) {
  TomlWriter writer{.out = "# cifar-train settings (read back with --config)\n"};
  train_options(config, writer);
  return writer.out;
}

std::vector<std::pair<std::string, SettingRole>> train_setting_roles() {
  const TrainConfig defaults;
  RoleLister lister;
  train_options(defaults, lister);
  return std::move(lister.roles);
}

void add_eval_options(CLI::App& app, EvalConfig& config) {
  eval_options(config, OptionDeclarer{app});
}
void add_predict_options(CLI::App& app, PredictConfig& config) {
  predict_options(config, OptionDeclarer{app});
}
void add_export_options(CLI::App& app, ExportConfig& config) {
  export_options(config, OptionDeclarer{app});
}

void validate(const EvalConfig& config) {
  eval_options(config, RangeChecker{});
  validate(static_cast<const ModelInput&>(config));
}
void validate(const PredictConfig& config) {
  predict_options(config, RangeChecker{});
  validate(static_cast<const ModelInput&>(config));
}
void validate(const ExportConfig& config) {
  export_options(config, RangeChecker{});
  validate(static_cast<const ModelInput&>(config));
  check_distinct_files({{"--checkpoint", config.checkpoint}, {"--weights", config.weights}},
                       {{"--out", config.out}});
}

}  // namespace cifar
