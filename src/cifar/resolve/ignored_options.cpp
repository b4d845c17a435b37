// ignored_options.cpp: options that do nothing in this run (ignored_options.h).
#include "cifar/resolve/ignored_options.h"

#include <fmt/format.h>
#include <fmt/ranges.h>
#include <spdlog/spdlog.h>

#include <algorithm>
#include <cctype>
#include <vector>

#include "cifar/config/config.h"
#include "cifar/config/settings_check.h"
#include "cifar/data/dataset.h"
#include "cifar/model/model_registry.h"
#include "cifar/optim/optimizer_registry.h"

namespace cifar {
namespace {

bool sets_itself(const Recipe& recipe, const std::string& key) {
  const auto own = [&](const std::string& k) {
    return std::ranges::find(recipe.own_settings, k) != recipe.own_settings.end();
  };
  if (own(key)) return true;
  // A recipe that chooses its optimisers sets whatever an optimiser reads.
  const std::vector<std::string> read = optimizer_settings();
  return own("optimizer") && std::ranges::find(read, key) != read.end();
}

// The recipe's own settings given other values than their defaults, in
// table order ("--lr, --momentum").
std::vector<std::string> overridden(const TrainConfig& c, const Recipe& recipe) {
  std::vector<std::string> given;
  if (recipe.own_settings.empty()) return given;
  for (const SettingChange& change : changed_settings(TrainConfig{}, c)) {
    if (sets_itself(recipe, change.key)) given.push_back("--" + change.key);
  }
  return given;
}

// The options some optimiser reads, given other values than their defaults,
// that --optimizer's does not read ("--momentum, --nesterov" for adamw).
std::vector<std::string> unread_by_optimizer(const TrainConfig& c) {
  std::vector<std::string> unread;
  const std::vector<std::string> all = optimizer_settings();
  const OptimizerEntry& entry = optimizer_entry(c.optimizer);
  for (const SettingChange& change : changed_settings(TrainConfig{}, c)) {
    if (std::ranges::find(all, change.key) != all.end() && !entry.reads(change.key)) {
      unread.push_back("--" + change.key);
    }
  }
  return unread;
}

// --crop-scale given (another value than its default) where no random
// resized crop is cut: a run that does not augment, or data that is not an
// image folder (CIFAR's images are translated, never resized). "" otherwise,
// or when the data cannot be told yet (reading it says why).
std::string ignored_crop_scale(const TrainConfig& c, const Recipe& recipe) {
  if (c.crop_scale == TrainConfig{}.crop_scale) return "";
  if (!recipe.augmentation.translates()) {
    return fmt::format(
        "--crop-scale {:g} does nothing here: random resized crops augment training images, "
        "and the {} recipe does not augment them in this run (--augment turns it on): ignored",
        c.crop_scale, recipe.name);
  }
  std::optional<DatasetKind> kind;
  try {
    kind = dataset_request(c.dataset);
    if (!kind) kind = detect_dataset(c.data_dir);
  } catch (const std::exception&) {
    return "";
  }
  if (dataset_entry(*kind).resized_crops) return "";
  return fmt::format(
      "--crop-scale {:g} does nothing here: only image folders are trained on random resized "
      "crops, and {} is {} (its images are translated): ignored",
      c.crop_scale, c.data_dir, to_string(*kind));
}

}  // namespace

void warn_ignored(const TrainConfig& c, const Recipe& recipe, const std::string& model,
                  const torch::Device& device) {
  const ModelEntry& entry = model_entry(model);
  if (!entry.has_stem && c.stem.value_or(ResNetStem::kCifar) != ResNetStem::kCifar) {
    spdlog::warn("--stem only applies to models with a stem choice; the {} model ignores it",
                 model);
  }
  if (c.cuda_graph && !device.is_cuda()) {
    spdlog::warn("--cuda-graph needs a CUDA device; training eagerly on {}", device.str());
  }
  if (!sets_itself(recipe, "warmup-epochs") && c.warmup_epochs > static_cast<double>(c.epochs)) {
    const double reached = c.schedule == Schedule::kOneCycle
                               ? c.lr
                               : c.lr * static_cast<double>(c.epochs) / c.warmup_epochs;
    spdlog::warn(
        "--warmup-epochs {} is longer than the run's {} epochs: the learning rate climbs for the "
        "whole run{}; give --warmup-epochs below {} or train longer",
        c.warmup_epochs, c.epochs,
        c.schedule == Schedule::kOneCycle
            ? fmt::format(" and peaks at --lr {:g} only at the last step", reached)
            : fmt::format(" and ends at {:.3g}, never reaching --lr {:g}", reached, c.lr),
        c.epochs);
  }
  if (!sets_itself(recipe, "optimizer")) {
    if (const auto unread = unread_by_optimizer(c); !unread.empty()) {
      spdlog::warn("--optimizer {} does not use {}: ignored", c.optimizer,
                   fmt::format("{}", fmt::join(unread, ", ")));
    }
  }
  if (const std::string note = ignored_crop_scale(c, recipe); !note.empty()) {
    spdlog::warn("{}", note);
  }
  if (const auto given = overridden(c, recipe); !given.empty()) {
    spdlog::warn("the {} recipe sets {} itself: the value{} given {} ignored", recipe.name,
                 fmt::format("{}", fmt::join(given, ", ")), given.size() > 1 ? "s" : "",
                 given.size() > 1 ? "are" : "is");
  }
}

std::string non_finite_hint(const Recipe& recipe, const std::string& model, AmpMode amp) {
  std::vector<std::string> tries;
  tries.reserve(4);
  if (!sets_itself(recipe, "lr")) tries.push_back("lower --lr");
  if (!sets_itself(recipe, "warmup-epochs")) tries.push_back("add --warmup-epochs");
  if (amp != AmpMode::kOff) tries.push_back("use --amp off");
  if (sets_itself(recipe, "lr") && model != recipe.network) {
    tries.push_back(fmt::format(
        "train {} with --recipe classic, whose --lr and --warmup-epochs you choose (--recipe {} "
        "sets its own rates, tuned for {})",
        model, recipe.name, recipe.network));
  }
  if (tries.empty()) return "";
  std::string hint = tries.front();
  for (size_t i = 1; i < tries.size(); ++i) {
    hint += (i + 1 == tries.size() ? ", or " : ", ") + tries[i];
  }
  hint[0] = static_cast<char>(std::toupper(static_cast<unsigned char>(hint[0])));
  return hint;
}

}  // namespace cifar
