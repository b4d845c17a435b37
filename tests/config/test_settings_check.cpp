// test_settings_check.cpp: saved settings compared by the roles in the option
// table (--resume's refusals and note).
#include <catch2/catch.hpp>

#include "cifar/config/config.h"
#include "cifar/config/settings_check.h"
#include "cifar/core/errors.h"

using namespace cifar;

TEST_CASE("changed_settings names what shapes the run, not what is local", "[settings]") {
  TrainConfig a;
  TrainConfig b = a;
  b.lr = 0.2;
  b.threads = 7;             // local: each process's own
  b.data_dir = "elsewhere";  // local: the data itself is compared across ranks
  b.log_interval_s = 3;      // local
  const auto changes = changed_settings(to_toml(a), to_toml(b));
  REQUIRE(changes.size() == 1);
  CHECK(changes[0].key == "lr");
  CHECK(changes[0].role == SettingRole::kShapes);
  CHECK(describe_changes(changes) == "--lr 0.001 -> 0.2");
}

TEST_CASE("the table gives batch size, subset and seed the mid-epoch role, recipe fixed",
          "[settings]") {
  TrainConfig a;
  TrainConfig b = a;
  b.batch_size = 64;
  b.seed = 3;
  b.recipe = "airbench94";
  const auto changes = changed_settings(to_toml(a), to_toml(b));
  REQUIRE(changes.size() == 3);
  for (const auto& c : changes) {
    if (c.key == "recipe") CHECK(c.role == SettingRole::kFixed);
    if (c.key == "batch-size" || c.key == "seed") CHECK(c.role == SettingRole::kFixedMidEpoch);
  }
}

TEST_CASE("check_resumed_settings refuses mid-epoch what it continues between epochs",
          "[settings]") {
  TrainConfig a;
  TrainConfig b = a;
  b.batch_size = 64;
  CheckpointInfo was;
  was.config_toml = to_toml(a);
  was.epoch = 0;
  was.step_in_epoch = 4;
  CHECK_THROWS_WITH(check_resumed_settings("mid.pt", was, was.config_toml, to_toml(b)),
                    Catch::Contains("stopped in epoch 1 after step 4") &&
                        Catch::Contains("--batch-size 4 -> 64") &&
                        Catch::Contains("Resume with --batch-size 4 "));
  was.epoch = 1;
  was.step_in_epoch = 0;
  CHECK(check_resumed_settings("end.pt", was, was.config_toml, to_toml(b)) ==
        "resuming end.pt with settings changed since it was written: --batch-size 4 -> 64");
  CHECK(check_resumed_settings("end.pt", was, was.config_toml, to_toml(a)).empty());
  b = a;
  b.recipe = "airbench94";
  CHECK_THROWS_AS(check_resumed_settings("end.pt", was, was.config_toml, to_toml(b)), UsageError);
}

namespace {
// `toml` with the line of `key` set to another value than it has (added
// when `toml` has none): a boolean flipped, a number or text replaced.
std::string with_other_value(const std::string& toml, const std::string& key) {
  const std::string start = key + " = ";
  const size_t found = toml.starts_with(start) ? 0 : toml.find("\n" + start);
  if (found == std::string::npos) return toml + start + "\"other\"\n";
  const size_t at = found == 0 ? 0 : found + 1;
  const size_t end = toml.find('\n', at);
  const std::string value = toml.substr(at + start.size(), end - at - start.size());
  const std::string other = value == "true"          ? "false"
                            : value == "false"       ? "true"
                            : value.starts_with('"') ? "\"other\""
                            : value == "12345"       ? "54321"
                                                     : "12345";
  return toml.substr(0, at) + start + other + toml.substr(end);
}

// `toml` without the line of `key`.
std::string without(const std::string& toml, const std::string& key) {
  const size_t found = toml.find("\n" + key + " = ");
  if (found == std::string::npos) return toml;
  return toml.substr(0, found) + toml.substr(toml.find('\n', found + 1));
}
}  // namespace

TEST_CASE("every setting that shapes a run is named when it changes, set before or not",
          "[settings]") {
  const std::string defaults = to_toml(TrainConfig{});
  int named = 0;
  for (const auto& [key, role] : train_setting_roles()) {
    if (role == SettingRole::kLocal) continue;
    INFO("--" << key);
    // One setting changed from its default, whether config.toml held it or
    // left it out (an option not given), and back.
    const std::string one = with_other_value(defaults, key);
    for (const auto& [before, after] : {std::pair{defaults, one}, std::pair{one, defaults}}) {
      const auto changes = changed_settings(before, after);
      REQUIRE(changes.size() == 1);
      CHECK(changes[0].key == key);
      CHECK(changes[0].role == role);
    }
    // A setting a text lacks (an older checkpoint's) reads as its default.
    CHECK(changed_settings(without(defaults, key), defaults).empty());
    ++named;
  }
  CHECK(named > 20);
}

TEST_CASE("a mid-epoch resume refuses other training data, an epoch's end names it", "[settings]") {
  CheckpointInfo was;
  was.epoch = 2;
  was.step_in_epoch = 5;
  was.train_images = 100;
  was.train_fingerprint = std::string(64, 'a');
  CHECK(check_resumed_data("mid.pt", was, 100, std::string(64, 'a')).empty());
  for (const auto& [images, fingerprint] :
       {std::pair{int64_t{99}, std::string(64, 'a')}, std::pair{int64_t{100}, std::string(64, 'b')},
        std::pair{int64_t{5000}, std::string(64, 'c')}}) {
    INFO(images << " images, " << fingerprint);
    CHECK_THROWS_AS(check_resumed_data("mid.pt", was, images, fingerprint), UsageError);
    CHECK_THROWS_WITH(check_resumed_data("mid.pt", was, images, fingerprint),
                      Catch::Contains("--resume mid.pt stopped in epoch 3 after step 5") &&
                          Catch::Contains("other data"));
    CheckpointInfo at_end = was;
    at_end.step_in_epoch = 0;
    CHECK_THAT(check_resumed_data("end.pt", at_end, images, fingerprint),
               Catch::Contains("other training data"));
  }
  // An older checkpoint does not say: the rest of its epoch goes on, with a note.
  CheckpointInfo older = was;
  older.train_images = -1;
  older.train_fingerprint.clear();
  CHECK_THAT(check_resumed_data("old.pt", older, 50, std::string(64, 'b')),
             Catch::StartsWith("note: old.pt does not record the training data"));
  older.step_in_epoch = 0;
  CHECK(check_resumed_data("old.pt", older, 50, std::string(64, 'b')).empty());
}

TEST_CASE("settings compared in memory name what their config.toml texts would", "[settings]") {
  // Issue 54: ignored_options compared two TrainConfigs by writing both as
  // TOML and reading them back on every call; the table's own visitor now.
  TrainConfig c;
  c.lr = 0.01;
  c.momentum = 0.5;
  c.optimizer = "adamw";
  c.optimizer_args["beta1"] = 0.8;
  c.threads = 3;  // local: never a change
  c.nesterov = true;
  const auto keys = [](const std::vector<SettingChange>& changes) {
    std::vector<std::string> out;
    for (const SettingChange& s : changes) out.push_back(s.key);
    return out;
  };
  const auto in_memory = changed_settings(TrainConfig{}, c);
  CHECK(keys(in_memory) == keys(changed_settings(to_toml(TrainConfig{}), to_toml(c))));
  const std::vector<std::string> names = keys(in_memory);
  CHECK(std::ranges::find(names, "beta1") != names.end());
  CHECK(std::ranges::find(names, "threads") == names.end());
  CHECK(changed_settings(c, c).empty());
  const auto lr = std::ranges::find_if(in_memory, [](const auto& s) { return s.key == "lr"; });
  REQUIRE(lr != in_memory.end());
  CHECK(lr->after == "0.01");
}
