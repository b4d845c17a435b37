// test_graph_settings.cpp: what --cuda-graph cannot run (an optimiser
// without a device-rate update, where the recipe uses --optimizer) is
// refused by check_recipe_settings() on every device,
// before a run starts: the CPU, where --cuda-graph only warns, must refuse
// what a GPU run would; every recipe and a resolution schedule are accepted.
#include <catch2/catch.hpp>

#include <filesystem>

#include <string>
#include <vector>

#include "cifar/config/config.h"
#include "cifar/core/errors.h"
#include "cifar/resolve/recipe.h"
#include "config/parse_train.h"

using namespace cifar;
using test::parse;

namespace {
std::string config_file(const std::string& name) {
  return (std::filesystem::path(CIFAR_SOURCE_DIR) / "configs" / name).string();
}
// What cifar-train checks before it starts.
void check(const TrainConfig& c) {
  validate(c);
  check_recipe_settings(c);
}
}  // namespace

TEST_CASE("every recipe with --cuda-graph is accepted, as the GPU kit runs them",
          "[config][recipe]") {
  // scripts/gpu/check_steps.sh's graph steps: configs/resnet18.toml, the
  // tutorial's network at batch 4 (scripts/bench/run_bench.py's net-b4-gpu),
  // and the airbench recipes (four parameter groups, Muon among them; the
  // speedrun's resolution schedule: one capture per size).
  for (const char* config :
       {"resnet18.toml", "tutorial.toml", "airbench94.toml", "speedrun.toml"}) {
    INFO(config);
    CHECK_NOTHROW(check(parse({"--config", config_file(config), "--cuda-graph"})));
  }
  CHECK_NOTHROW(check(parse({"--model", "airbench94", "--recipe", "classic", "--cuda-graph"})));
  CHECK_NOTHROW(check(parse({"--model", "resnet18", "--resolution-schedule", "24x3", "--cuda-graph",
                             "--device", "cuda"})));
}

TEST_CASE("an optimiser whose update a CUDA graph cannot capture is refused with --cuda-graph",
          "[config][recipe][optim]") {
  for (const char* device : {"cpu", "cuda"}) {
    INFO(device);
    CHECK_THROWS_WITH(check(parse({"--optimizer", "adamw", "--cuda-graph", "--device", device})),
                      Catch::Contains("--cuda-graph captures the update of --optimizer sgd") &&
                          Catch::Contains("not that of --optimizer adamw") &&
                          Catch::Contains("drop --cuda-graph"));
  }
  CHECK_NOTHROW(check(parse({"--optimizer", "sgd", "--cuda-graph"})));
  // A recipe with its own optimisers ignores --optimizer (with a warning).
  CHECK_NOTHROW(check(
      parse({"--config", config_file("airbench94.toml"), "--optimizer", "adamw", "--cuda-graph"})));
  CHECK_NOTHROW(check(parse({"--optimizer", "adamw"})));
}

TEST_CASE("a resolution schedule is refused where its sizes cannot go",
          "[config][recipe][resolution]") {
  // With the tutorial's net, whose first linear layer is sized for 32 px.
  CHECK_THROWS_WITH(check(parse({"--resolution-schedule", "24"})),
                    Catch::Contains("net's first linear layer"));
  CHECK_THROWS_AS(check(parse({"--model", "net", "--resolution-schedule", "24"})), UsageError);
  CHECK_NOTHROW(check(parse({"--config", config_file("speedrun.toml")})));
  CHECK_NOTHROW(check(parse({"--model", "resnet18", "--resolution-schedule", "24x2,28"})));
  // The schedule as typed, and refused when it is not one.
  CHECK(parse({"--resolution-schedule", "24x3,28x3"}).resolution_schedule ==
        std::vector<int64_t>{24, 24, 24, 28, 28, 28});
  CHECK_THROWS(parse({"--resolution-schedule", "24x0"}));
}
