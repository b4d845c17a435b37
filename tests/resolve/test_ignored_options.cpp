// test_ignored_options.cpp: options that do nothing in a run are said once,
// among them the settings a recipe sets itself (Recipe::own_settings).
#include <catch2/catch.hpp>

#include <spdlog/sinks/ringbuffer_sink.h>
#include <spdlog/spdlog.h>

#include <string>

#include "cifar/resolve/ignored_options.h"

using namespace cifar;

namespace {
// The warnings warn_ignored logs for `c` on the CPU, one line each.
std::string warnings_for(const TrainConfig& c, const std::string& model) {
  auto sink = std::make_shared<spdlog::sinks::ringbuffer_sink_mt>(16);
  auto previous = spdlog::default_logger();
  spdlog::set_default_logger(std::make_shared<spdlog::logger>("test", sink));
  warn_ignored(c, make_recipe(c), model, torch::Device(torch::kCPU));
  spdlog::set_default_logger(previous);
  std::string out;
  for (const auto& line : sink->last_formatted()) out += line;
  return out;
}
}  // namespace

TEST_CASE("a recipe's own settings given on the command line are named as ignored",
          "[ignored_options]") {
  TrainConfig c;
  c.recipe = "airbench94";
  CHECK(warnings_for(c, "airbench94").empty());  // nothing given: nothing to say
  c.lr = 0.5;
  c.augment = true;
  c.step.label_smoothing = 0.1;
  CHECK_THAT(warnings_for(c, "airbench94"),
             Catch::Contains("the airbench94 recipe sets --augment, --lr, --label-smoothing "
                             "itself: the values given are ignored"));
  c.recipe = "classic";  // the classic recipe takes them
  CHECK(warnings_for(c, "net").empty());
}

TEST_CASE("an optimiser hyperparameter the run's optimiser does not read is named",
          "[ignored_options]") {
  TrainConfig c;
  c.optimizer_args.at("beta2") = 0.95;
  c.optimizer = "adamw";  // reads it
  CHECK(warnings_for(c, "net").empty());
  c.optimizer = "sgd";
  CHECK_THAT(warnings_for(c, "net"),
             Catch::Contains("--optimizer sgd does not use --beta2: ignored"));
  c.recipe = "airbench94";  // chooses its own optimisers, and all they read
  CHECK_THAT(warnings_for(c, "airbench94"),
             Catch::Contains("the airbench94 recipe sets --beta2 itself"));
}

TEST_CASE("a warm-up longer than the run is said for recipes that take it", "[ignored_options]") {
  TrainConfig c;
  c.epochs = 2;
  c.warmup_epochs = 5;
  CHECK_THAT(warnings_for(c, "net"), Catch::Contains("--warmup-epochs 5 is longer than"));
  c.recipe = "airbench94";  // sets its own schedule: only the ignored line
  const std::string airbench = warnings_for(c, "airbench94");
  CHECK_THAT(airbench, !Catch::Contains("is longer than"));
  CHECK_THAT(airbench, Catch::Contains("--warmup-epochs itself"));
}

TEST_CASE("a diverged run's advice names only options its recipe reads", "[ignored_options]") {
  TrainConfig c;
  CHECK(non_finite_hint(make_recipe(c), "net", AmpMode::kBf16) ==
        "Lower --lr, add --warmup-epochs, or use --amp off");
  CHECK(non_finite_hint(make_recipe(c), "resnet18", AmpMode::kOff) ==
        "Lower --lr, or add --warmup-epochs");
  c.recipe = "airbench94";  // sets its rates and warm-up itself
  CHECK(non_finite_hint(make_recipe(c), "airbench94", AmpMode::kBf16) == "Use --amp off");
  CHECK(non_finite_hint(make_recipe(c), "airbench94", AmpMode::kOff).empty());
  CHECK(non_finite_hint(make_recipe(c), "resnet18", AmpMode::kOff) ==
        "Train resnet18 with --recipe classic, whose --lr and --warmup-epochs you choose "
        "(--recipe airbench94 sets its own rates, tuned for airbench94)");
}
