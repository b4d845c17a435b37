// settings_check.cpp: saved settings compared by the roles of the option tables.
#include "cifar/config/settings_check.h"

#include <fmt/format.h>

#include <map>

#include "cifar/config/config.h"
#include "cifar/config/config_file.h"
#include "cifar/config/option_tables.h"
#include "cifar/config/option_visitors.h"
#include "cifar/core/errors.h"

namespace cifar {
namespace {

std::map<std::string, std::string> values_of(std::string_view toml) {
  std::map<std::string, std::string> values;
  for (TomlEntry& e : read_settings_toml(toml)) values[e.key] = std::move(e.value);
  return values;
}

std::string shown(const std::string& value) {
  return value.empty() ? "(none)" : value;
}

std::vector<SettingChange> with_role(const std::vector<SettingChange>& changes, SettingRole role) {
  std::vector<SettingChange> out;
  for (const SettingChange& c : changes) {
    if (c.role == role) out.push_back(c);
  }
  return out;
}

// "--batch-size 4" for each change, with the checkpoint's value.
std::string as_before(const std::vector<SettingChange>& changes) {
  std::string out;
  for (const SettingChange& c : changes) {
    out += fmt::format("{}--{} {}", out.empty() ? "" : " ", c.key, shown(c.before));
  }
  return out;
}

}  // namespace

std::vector<RunSetting> run_settings(const TrainConfig& settings) {
  options::ValueLister lister;
  options::train_options(settings, lister);
  std::vector<RunSetting> out;
  for (options::ValueLister::Value& v : lister.values) {
    if (v.role != SettingRole::kLocal) {
      out.push_back({.key = std::move(v.key), .value = std::move(v.text), .role = v.role});
    }
  }
  return out;
}

std::vector<SettingChange> changed_settings(std::string_view before_toml,
                                            std::string_view after_toml) {
  // A key a text lacks has its default: to_toml leaves out the text options
  // not given (--resolution-schedule, --dataset), and an older version's
  // checkpoint the options it did not have.
  static const auto defaults = values_of(to_toml(TrainConfig{}));
  const auto value = [](const std::map<std::string, std::string>& values, const std::string& key) {
    const auto it = values.find(key);
    if (it != values.end()) return it->second;
    const auto d = defaults.find(key);
    return d != defaults.end() ? d->second : std::string();
  };
  const auto before = values_of(before_toml);
  const auto after = values_of(after_toml);
  std::vector<SettingChange> changes;
  for (const auto& [key, role] : train_setting_roles()) {
    if (role == SettingRole::kLocal) continue;
    std::string b = value(before, key);
    std::string a = value(after, key);
    if (a == b) continue;
    changes.push_back({.key = key, .before = std::move(b), .after = std::move(a), .role = role});
  }
  return changes;
}

std::vector<SettingChange> changed_settings(const TrainConfig& before, const TrainConfig& after) {
  const auto values = [](const TrainConfig& c) {
    options::ValueLister lister;
    options::train_options(c, lister);
    std::map<std::string, options::ValueLister::Value> by_key;
    for (options::ValueLister::Value& v : lister.values) by_key[v.key] = std::move(v);
    return by_key;
  };
  const auto b = values(before);
  const auto a = values(after);
  std::vector<SettingChange> changes;
  for (const auto& [key, role] : train_setting_roles()) {
    if (role == SettingRole::kLocal) continue;
    const auto bi = b.find(key);
    const auto ai = a.find(key);
    std::string was = bi != b.end() ? bi->second.text : "";  // left out: unset
    std::string now = ai != a.end() ? ai->second.text : "";
    if (was == now) continue;
    changes.push_back(
        {.key = key, .before = std::move(was), .after = std::move(now), .role = role});
  }
  return changes;
}

std::string describe_changes(const std::vector<SettingChange>& changes) {
  std::string out;
  for (const SettingChange& c : changes) {
    out += fmt::format("{}--{} {} -> {}", out.empty() ? "" : ", ", c.key, shown(c.before),
                       shown(c.after));
  }
  return out;
}

std::string check_resumed_settings(const std::string& checkpoint, const CheckpointInfo& was,
                                   const std::string& was_toml, const std::string& now_toml) {
  if (was.config_toml.empty()) return "";  // written before settings were saved
  const std::vector<SettingChange> changes = changed_settings(was_toml, now_toml);
  if (const auto fixed = with_role(changes, SettingRole::kFixed); !fixed.empty()) {
    throw UsageError(fmt::format(
        "--resume {} cannot continue with {}: a run keeps what it trains (model, recipe, "
        "optimiser, images) from its start. Resume with {} (its settings are in its run "
        "folder's config.toml: --config), or start a new run",
        checkpoint, describe_changes(fixed), as_before(fixed)));
  }
  const auto mid = with_role(changes, SettingRole::kFixedMidEpoch);
  if (was.step_in_epoch > 0 && !mid.empty()) {
    throw UsageError(fmt::format(
        "--resume {} stopped in epoch {} after step {}, and the rest of that epoch cannot be "
        "trained with other settings ({}): its steps are counted in batches of the old batch "
        "size, over the old images in the old seed's order. Resume with {} (its run folder's "
        "config.toml holds them: --config); they may change from the next epoch on",
        checkpoint, was.epoch + 1, was.step_in_epoch, describe_changes(mid), as_before(mid)));
  }
  if (changes.empty()) return "";
  return fmt::format("resuming {} with settings changed since it was written: {}", checkpoint,
                     describe_changes(changes));
}

std::string check_resumed_data(const std::string& checkpoint, const CheckpointInfo& was,
                               int64_t images, const std::string& fingerprint) {
  const bool mid_epoch = was.step_in_epoch > 0;
  if (was.train_images < 0) {
    if (!mid_epoch) return "";
    return fmt::format(
        "note: {} does not record the training data its epoch {} counts its steps in (written by "
        "an older cifar-train): the rest of that epoch is trained on the {} images --data gives "
        "now, unchecked",
        checkpoint, was.epoch + 1, images);
  }
  if (was.train_images == images && was.train_fingerprint == fingerprint) return "";
  const std::string what =
      was.train_images == images
          ? fmt::format(
                "the same number of training images ({}), but other ones or in another "
                "order (SHA-256 {:.12} was {:.12})",
                images, fingerprint, was.train_fingerprint)
          : fmt::format("{} training images where it had {}", images, was.train_images);
  if (!mid_epoch) {
    return fmt::format("resuming {} on other training data than it was trained on: {}", checkpoint,
                       what);
  }
  throw UsageError(fmt::format(
      "--resume {} stopped in epoch {} after step {}, and the rest of that epoch cannot be "
      "trained on other data: --data now gives {}. Its steps are counted in batches of the old "
      "images: resume on the data it was trained on (the same --data, --train-limit and "
      "--val-split), or start a new run",
      checkpoint, was.epoch + 1, was.step_in_epoch, what));
}

void check_distinct_files(const std::vector<NamedFile>& inputs,
                          const std::vector<NamedFile>& outputs) {
  if (const std::string problem = distinct_files_problem(inputs, outputs); !problem.empty()) {
    throw UsageError(problem);
  }
}

}  // namespace cifar
