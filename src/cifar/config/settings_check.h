// settings_check.h: two runs' saved settings compared, option by option.
//
// A run's settings are its config.toml (config.h's to_toml); a checkpoint's
// header holds those it was trained with. They are compared key by key, and
// what a difference means comes from the option's role in the table
// (setting_role.h), not from a list kept here: --resume refuses to continue
// with another model, stem or recipe, or mid-epoch with another batch size,
// training subset or seed, and says in one line what else changed.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "cifar/config/setting_role.h"
#include "cifar/config/train_config.h"
#include "cifar/core/file_identity.h"
#include "cifar/io/checkpoint.h"

namespace cifar {

struct SettingChange {
  std::string key;     // the long option name, without "--"
  std::string before;  // as config.toml holds it: "0.001", "cosine", "true"
  std::string after;
  SettingRole role = SettingRole::kShapes;
};

struct RunSetting {
  std::string key;  // the long option name, without "--"
  std::string value;
  SettingRole role = SettingRole::kShapes;
};

// The settings that shape the run (every role but kLocal), in table order,
// read through the option table (unset and empty options left out): what
// processes compare with each other (resolve/rank_agreement.h).
std::vector<RunSetting> run_settings(const TrainConfig& settings);

// The keys of cifar-train's table whose values differ, in table order, kLocal
// keys left out. A key a text lacks counts as its default value ("" for the
// text options, which config.toml holds only when given): an option the old
// run did not set and the new one does is a change, and so is one that a
// checkpoint of an older version did not know, given another value than its
// default. UsageError when a text is not flat TOML.
// The same for two settings in memory, compared through the option table
// (option_visitors.h's ValueLister): no TOML text written or read.
std::vector<SettingChange> changed_settings(const TrainConfig& before, const TrainConfig& after);

std::vector<SettingChange> changed_settings(std::string_view before_toml,
                                            std::string_view after_toml);

// "--lr 0.001 -> 0.01, --seed 0 -> 1".
std::string describe_changes(const std::vector<SettingChange>& changes);

// --resume `checkpoint` (its header `was`, its settings as resolved
// `was_toml`: config_toml with the images it records) with the settings
// `now_toml`, resolved alike.
// Throws UsageError naming the option, both values and the way out for a
// change that cannot be continued; returns the line that names the other
// changes, or "" when there are none (or the checkpoint saved no settings).
std::string check_resumed_settings(const std::string& checkpoint, const CheckpointInfo& was,
                                   const std::string& was_toml, const std::string& now_toml);

// --resume `checkpoint` (its header `was`) on a training split of `images`
// images whose fingerprint is `fingerprint` (CheckpointInfo::train_fingerprint).
// A checkpoint written mid-epoch counts its steps in batches of the split it
// was trained on: other data (another count or fingerprint) is refused with
// a UsageError, as other mid-epoch settings are. Returns a note for a
// mid-epoch checkpoint that does not record its data (older files) and for
// other data from an epoch's end on, else "".
std::string check_resumed_data(const std::string& checkpoint, const CheckpointInfo& was,
                               int64_t images, const std::string& fingerprint);

// UsageError with core/file_identity.h's distinct_files_problem, if any:
// no output may be an input or another output.
void check_distinct_files(const std::vector<NamedFile>& inputs,
                          const std::vector<NamedFile>& outputs);

}  // namespace cifar
