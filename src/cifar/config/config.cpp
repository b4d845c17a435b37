// config.cpp: the CLI, checks and TOML derived from the four tools' option
// tables (option_tables.h).
//
// A table hands every option, with its field, to a visitor
// (option_visitors.h): OptionDeclarer declares it on a CLI11 app,
// RangeChecker checks a filled-in config, ValueLister lists it (toml_lines writes it), RoleLister
// lists what each setting is to a run.
#include "cifar/config/config.h"

#include <fmt/format.h>

#include <algorithm>
#include <cctype>

#include <CLI/CLI.hpp>
#include <limits>
#include <type_traits>

#include "cifar/config/normalization_flags.h"
#include "cifar/config/option_tables.h"
#include "cifar/config/settings_check.h"
#include "cifar/core/errors.h"
#include "cifar/core/file_identity.h"
#include "cifar/core/file_io.h"

namespace cifar {
using namespace options;
namespace {

// --freeze-body, --train-from and --body-lr-scale fine-tune a body trained
// before: they need --init-weights (or --resume, whose checkpoint must have
// had them: resolve/model_source.cpp); --freeze-body goes with neither other.
void check_fine_tune_settings(const TrainConfig& c) {
  const std::string given = c.freeze_body ? "--freeze-body"
                            : !c.train_from.empty()
                                ? "--train-from " + c.train_from
                                : fmt::format("--body-lr-scale {:g}", c.body_lr_scale);
  if (c.freeze_body && !c.train_from.empty()) {
    throw UsageError(fmt::format(
        "--freeze-body trains the head only, and --train-from {} trains from that module on: "
        "give one of them",
        c.train_from));
  }
  if (c.freeze_body && c.body_lr_scale != 1) {
    throw UsageError(fmt::format(
        "--freeze-body trains no part of the body, so --body-lr-scale {:g} has nothing to "
        "scale: give one of them",
        c.body_lr_scale));
  }
  if (!c.init_weights_sha256.empty()) {
    const std::string& hex = c.init_weights_sha256;
    if (hex.size() < 8 || hex.size() > 64 ||
        !std::ranges::all_of(hex, [](unsigned char ch) { return std::isxdigit(ch) != 0; })) {
      throw UsageError(fmt::format(
          "--init-weights-sha256 '{}' is not a SHA-256: give the 64 hex digits sha256sum prints "
          "for the file, or the first 8 or more of them",
          hex));
    }
    if (c.init_weights.empty()) {
      throw UsageError(
          "--init-weights-sha256 checks the file --init-weights names: give --init-weights FILE "
          "too, or drop it");
    }
  }
  if ((c.freeze_body || !c.train_from.empty() || c.body_lr_scale != 1) && c.init_weights.empty() &&
      c.resume.empty() && !c.pretrained) {
    throw UsageError(fmt::format(
        "{} fine-tunes the body of weights trained before, but this run starts a fresh model "
        "(its body is random): add --pretrained (ImageNet weights) or --init-weights FILE, or "
        "drop {}",
        given, given.substr(0, given.find(' '))));
  }
}

}  // namespace

void check_image_options(int64_t image_size, double crop_pct, const char* unset_size,
                         const char* unset_pct) {
  if (image_size > 0 && image_size < kMinImageSize) {
    throw UsageError(fmt::format("--image-size must be 0 ({}) or from {} to {} px, got {}",
                                 unset_size, kMinImageSize, kMaxResolution, image_size));
  }
  if (crop_pct > 0 && crop_pct < kMinCropPct) {
    throw UsageError(fmt::format(
        "--crop-pct must be 0 ({}) or from {:g} to 1 (the share of the resized image's side the "
        "centre crop keeps; 0.875 is torchvision's), got {:g}",
        unset_pct, kMinCropPct, crop_pct));
  }
}

// The settings as they will be saved: the model the run really trains, and
// absolute paths, so that config.toml resumes the run from any folder.
TrainConfig resolved_settings(const TrainConfig& c, const std::string& model, ResNetStem stem,
                              const std::filesystem::path& run_dir,
                              const std::filesystem::path& checkpoint) {
  TrainConfig r = c;
  r.model = model;
  r.stem = stem;
  r.data_dir = absolute_path(c.data_dir).string();
  r.run_dir = absolute_path(run_dir).string();
  r.checkpoint = absolute_path(checkpoint).string();
  if (!c.init_weights.empty()) {
    r.init_weights = absolute_path(c.init_weights).string();
  }
  return r;
}

// What TensorBoard's HPARAMS tab shows of a run.
std::vector<HParam> hparams_of(const TrainConfig& c) {
  return {{"recipe", c.recipe},
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
  if (config.time_minutes > 0 && !config.resume.empty()) {
    throw UsageError(
        "--time fits a new run's epochs; a resumed run trains to the count its run settled on "
        "(its config.toml's epochs): drop --time");
  }
  if (config.time_minutes > 0 && config.steps > 0) {
    throw UsageError(fmt::format(
        "--time {:g} and --steps {} both set the run's length: give one (--time fits the "
        "epochs to the minutes, --steps takes as many epochs as the steps need)",
        config.time_minutes, config.steps));
  }
  check_mean_std_pair(config.mean.has_value(), config.std.has_value());
  if (config.mean && config.init_weights.empty()) {
    throw UsageError(
        "--mean and --std say how an --init-weights file's weights normalise their images: give "
        "them with --init-weights FILE (a fresh run normalises with its data's figures, "
        "--pretrained and --resume with their weights' own)");
  }
  if (config.pretrained && !config.init_weights.empty()) {
    throw UsageError(
        "--pretrained and --init-weights both say which weights to start from: give one");
  }
  check_fine_tune_settings(config);
  if (config.nesterov && config.momentum == 0) {
    throw UsageError(
        "--nesterov needs --momentum above 0 (Nesterov momentum without momentum is plain SGD)");
  }
  // What the recipe, its model and its optimiser can follow is checked by
  // the recipe registry (resolve/recipe.h: check_recipe_settings).
  check_image_options(config.image_size, config.crop_pct, "the data set's own size",
                      "the data set's");
}

std::string to_toml(const TrainConfig& config) {
  ValueLister lister;
  train_options(config, lister);
  return "# cifar-train settings (read back with --config)\n" + toml_lines(lister.values);
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
  // Reading an image folder may write its cache: never onto the model's file.
  check_distinct_files({{"--checkpoint", config.checkpoint}, {"--weights", config.weights}},
                       dataset_output_files(config.data_dir, dataset_request(config.dataset)));
}
void validate(const PredictConfig& config) {
  predict_options(config, RangeChecker{});
}
void validate(const ExportConfig& config) {
  export_options(config, RangeChecker{});
  check_distinct_files({{"--checkpoint", config.checkpoint}, {"--weights", config.weights}},
                       {{"--out", config.out}});
}

}  // namespace cifar
