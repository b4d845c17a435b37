// settings_check.cpp: saved settings compared by the roles of the option tables.
#include "cifar/config/settings_check.h"

#include <fmt/format.h>

#include <map>

#include "cifar/config/config.h"
#include "cifar/core/errors.h"
#include "cifar/formats/toml_text.h"

namespace cifar {
namespace {

std::map<std::string, std::string> values_of(std::string_view toml) {
  std::map<std::string, std::string> values;
  for (TomlEntry& e : read_flat_toml(toml)) values[e.key] = std::move(e.value);
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

std::vector<RunSetting> run_settings(std::string_view toml) {
  const auto values = values_of(toml);
  std::vector<RunSetting> out;
  for (const auto& [key, role] : train_setting_roles()) {
    if (role == SettingRole::kLocal) continue;
    if (const auto it = values.find(key); it != values.end()) {
      out.push_back({.key = key, .value = it->second, .role = role});
    }
  }
  return out;
}

std::vector<SettingChange> changed_settings(std::string_view before_toml,
                                            std::string_view after_toml) {
  const auto after = values_of(after_toml);
  std::vector<SettingChange> changes;
  for (const RunSetting& b : run_settings(before_toml)) {
    const auto a = after.find(b.key);
    if (a == after.end() || a->second == b.value) continue;
    changes.push_back({.key = b.key, .before = b.value, .after = a->second, .role = b.role});
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
                                   const std::string& now_toml) {
  if (was.config_toml.empty()) return "";  // written before settings were saved
  const std::vector<SettingChange> changes = changed_settings(was.config_toml, now_toml);
  if (const auto fixed = with_role(changes, SettingRole::kFixed); !fixed.empty()) {
    throw UsageError(fmt::format(
        "--resume {} cannot continue with another model or recipe ({}): resume with {} (its "
        "settings are in its run folder's config.toml: --config), or start a new run",
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

}  // namespace cifar
