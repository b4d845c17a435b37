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
  CHECK_THROWS_WITH(check_resumed_settings("mid.pt", was, to_toml(b)),
                    Catch::Contains("stopped in epoch 1 after step 4") &&
                        Catch::Contains("--batch-size 4 -> 64") &&
                        Catch::Contains("Resume with --batch-size 4 "));
  was.epoch = 1;
  was.step_in_epoch = 0;
  CHECK(check_resumed_settings("end.pt", was, to_toml(b)) ==
        "resuming end.pt with settings changed since it was written: --batch-size 4 -> 64");
  CHECK(check_resumed_settings("end.pt", was, to_toml(a)).empty());
  b = a;
  b.recipe = "airbench94";
  CHECK_THROWS_AS(check_resumed_settings("end.pt", was, to_toml(b)), UsageError);
}
