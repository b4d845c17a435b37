// test_config.cpp: each option's checks, the command line's range errors and
// the shipped configs. config.toml read back: test_config_toml.cpp; the
// options of cifar-eval, cifar-predict and cifar-export: test_tool_options.cpp.
#include <catch2/catch.hpp>

#include <CLI/CLI.hpp>
#include <filesystem>
#include <fstream>

#include "cifar/config/config.h"
#include "cifar/core/errors.h"
#include "config/parse_train.h"
#include "test_helpers.h"

using namespace cifar;
using test::parse;

namespace {
std::string parse_error(const std::vector<std::string>& args) {
  try {
    parse(args);
  } catch (const CLI::ParseError& e) {
    return e.what();
  }
  return "";
}
}  // namespace

TEST_CASE("every option is checked, naming the flag and the value", "[config]") {
  auto bad = [](auto mutate, const std::string& message) {
    TrainConfig c;
    mutate(c);
    INFO(message);
    CHECK_THROWS_AS(validate(c), UsageError);
    CHECK_THROWS_WITH(validate(c), Catch::Contains(message));
  };
  bad([](TrainConfig& c) { c.epochs = 0; }, "--epochs must be at least 1, got 0");
  bad([](TrainConfig& c) { c.batch_size = -3; }, "--batch-size must be at least 1, got -3");
  // A count past its cap names the cap (it said "must be at least 1, got 1073741824").
  bad([](TrainConfig& c) { c.batch_size = 1'073'741'824; },
      "--batch-size must be at most 1000000000, got 1073741824");
  bad([](TrainConfig& c) { c.lr = 0; }, "--lr must be positive, got 0");
  bad([](TrainConfig& c) { c.lr = 1e308; }, "--lr must be in (0, 1e+30], got 1e+308");
  bad([](TrainConfig& c) { c.threads = -1; }, "--threads must be at least 0, got -1");
  bad([](TrainConfig& c) { c.momentum = 1.0; }, "--momentum must be in [0, 1), got 1");
  bad([](TrainConfig& c) { c.momentum = -0.5; }, "--momentum must be at least 0, got -0.5");
  bad([](TrainConfig& c) { c.weight_decay = -1e-4; }, "--weight-decay must be at least 0");
  bad([](TrainConfig& c) { c.warmup_epochs = -1; }, "--warmup-epochs must be at least 0, got -1");
  bad([](TrainConfig& c) { c.eval_batch_size = 0; }, "--eval-batch-size must be at least 1, got 0");
  bad([](TrainConfig& c) { c.train_limit = -5; }, "--train-limit must be at least 0, got -5");
  bad([](TrainConfig& c) { c.test_limit = -7; }, "--test-limit must be at least 0, got -7");
  bad([](TrainConfig& c) { c.log_interval_s = 0; }, "--log-interval must be positive, got 0");
  bad([](TrainConfig& c) { c.step.label_smoothing = 1.5; }, "--label-smoothing must be in [0, 1)");
  bad([](TrainConfig& c) { c.lr = std::nan(""); }, "--lr must be a finite number");
  bad(
      [](TrainConfig& c) {
        c.nesterov = true;
        c.momentum = 0;
      },
      "--nesterov needs --momentum above 0");
  bad([](TrainConfig& c) { c.model = "vgg"; }, "unknown model 'vgg'");
  // The hyperparameters optimisers declare are options like the others.
  bad([](TrainConfig& c) { c.optimizer_args.at("beta2") = 1; }, "--beta2 must be in [0, 1), got 1");
  bad([](TrainConfig& c) { c.optimizer_args.at("eps") = 0; }, "--eps must be positive, got 0");
  CHECK_NOTHROW(validate(TrainConfig{}));
}

TEST_CASE("an optimiser's declared hyperparameters are options, saved and read back",
          "[config][optim]") {
  REQUIRE_FALSE(optimizer_hyperparameters().empty());
  for (const Hyperparameter& h : optimizer_hyperparameters()) {
    INFO(h.name);
    CHECK_FALSE(TrainConfig{}.optimizer_args.at(h.name));  // unset: the optimiser's default
    CHECK_THAT(to_toml(TrainConfig{}), !Catch::Contains("\n" + h.name + " ="));
  }
  const TrainConfig c = parse({"--optimizer", "adamw", "--beta2", "0.95", "--eps", "1e-6"});
  CHECK(c.optimizer_args.at("beta2") == 0.95);
  CHECK(c.optimizer_args.at("eps") == 1e-6);
  CHECK_FALSE(c.optimizer_args.at("beta1"));
  CHECK(given_args(c.optimizer_args) ==
        std::map<std::string, double>{{"beta2", 0.95}, {"eps", 1e-6}});
  CHECK_THAT(to_toml(c), Catch::Contains("beta2 = 0.95"));
  CHECK_THAT(parse_error({"--beta1", "1.5"}), Catch::Contains("--beta1"));
}

TEST_CASE("the command line refuses what does not fit, naming what was typed", "[config]") {
  CHECK_THAT(parse_error({"--epochs", "99999999999999999999"}),
             Catch::Contains("--epochs") && Catch::Contains("got 99999999999999999999"));
  CHECK_THAT(parse_error({"--seed", "-1"}), Catch::Contains("--seed") && Catch::Contains("got -1"));
  CHECK_THAT(parse_error({"--lr", "1e308"}), Catch::Contains("in (0, 1e+30]"));
  CHECK_THAT(parse_error({"--threads", "100000"}), Catch::Contains("--threads"));
  CHECK_THAT(parse_error({"--device", "tpu"}), Catch::Contains("'tpu' is not a device"));
  CHECK_THAT(parse_error({"--amp", "fp8"}), Catch::Contains("choose auto, bf16, fp16 or off"));
  CHECK(parse({"--amp", "fp16"}).amp == AmpMode::kFp16);
  CHECK(parse({"--amp", "auto"}).amp == AmpMode::kAuto);
  CHECK(parse({}).amp == AmpMode::kAuto);  // the default: what the device runs natively
  // --amp fp16 with --cuda-graph: refused where --amp is resolved (resolve/machine.h).
  CHECK_THAT(parse_error({"--schedule", "exponential"}), Catch::Contains("unknown schedule"));
  CHECK(parse_error({"--epochs", "3", "--seed", "18446744073709551615"}).empty());
  const TrainConfig c = parse({"--stem", "imagenet", "--schedule", "onecycle", "--amp", "bf16",
                               "--device", "cuda:1", "--no-tf32"});
  CHECK(c.stem == ResNetStem::kImageNet);
  CHECK(c.schedule == Schedule::kOneCycle);
  CHECK(c.amp == AmpMode::kBf16);
  CHECK(c.device.kind == DeviceRequest::Kind::kCuda);
  CHECK(c.device.index == 1);
  CHECK_FALSE(c.tf32);
}

TEST_CASE("numbers are read in base 10 as typed, on the command line and in config files",
          "[config]") {
  // CLI11 reads integers with base 0: 010 was 8, 0x10 16, ' -1' 2^64-1.
  CHECK(parse({"--epochs", "010"}).epochs == 10);
  CHECK(parse({"--seed", "010"}).seed == 10);
  CHECK(parse({"--train-limit", "0100"}).train_limit == 100);
  CHECK(parse({"--lr", "1e-3"}).lr == 0.001);
  CHECK(parse({"--lr", ".5"}).lr == 0.5);
  CHECK_THAT(parse_error({"--epochs", "0x10"}),
             Catch::Contains("--epochs") && Catch::Contains("base 10") && Catch::Contains("0x10"));
  CHECK_THAT(parse_error({"--seed", " -1"}), Catch::Contains("--seed") && Catch::Contains("' -1'"));
  CHECK_THAT(parse_error({"--seed", "+5"}), Catch::Contains("--seed"));
  // A text option given empty names nothing (it once read "data folder  does not exist").
  CHECK_THAT(parse_error({"--data", ""}), Catch::Contains("--data: must not be empty"));
  CHECK_THAT(parse_error({"--checkpoint", ""}), Catch::Contains("--checkpoint: must not be empty"));
  CHECK_THAT(parse_error({"--seed", "18446744073709551616"}),
             Catch::Contains("--seed: must be at most 18446744073709551615, got 1844"));
  CHECK_THAT(parse_error({"--epochs", "99999999999999999999"}),
             Catch::Contains("--epochs: must be at most 1000000, got 9999"));
  CHECK_THAT(parse_error({"--epochs", "3 "}), Catch::Contains("--epochs"));
  CHECK_THAT(parse_error({"--epochs", "1.5"}), Catch::Contains("base 10"));
  CHECK_THAT(parse_error({"--lr", "0x1p-3"}), Catch::Contains("--lr") && Catch::Contains("0x1p-3"));
  CHECK_THAT(parse_error({"--lr", " 0.1"}), Catch::Contains("--lr"));
  CHECK_THAT(parse_error({"--lr", "abc"}), Catch::Contains("--lr") && Catch::Contains("abc"));
  test::TempDir dir;
  const auto file = dir.path() / "numbers.toml";
  // A config file's numbers are TOML numbers (a quoted one is refused:
  // test_config_file.cpp); the quoted digits config.toml writes for a seed
  // past 2^63 are read in base 10.
  std::ofstream(file) << "epochs = 10\nseed = \"010\"\nlr = 2e-2\n";
  const TrainConfig c = parse({"--config", file.string()});
  CHECK(c.epochs == 10);
  CHECK(c.seed == 10);
  CHECK(c.lr == 0.02);
  std::ofstream(file) << "epochs = \"0x10\"\n";
  CHECK_THAT(parse_error({"--config", file.string()}), Catch::Contains("unquoted"));
}

// Issue 47, class 5: types are exact for every option cifar-train has, not
// the few a test names: each is given a value of another TOML type.
TEST_CASE("every cifar-train option refuses a config value of another type", "[config]") {
  TrainConfig c;
  CLI::App app;
  add_config_option(app, "config file");
  add_train_options(app, c);
  test::TempDir dir;
  const auto file = dir.path() / "typed.toml";
  int refused = 0;
  for (const CLI::Option* option : app.get_options()) {
    if (option->get_lnames().empty() || option == app.get_config_ptr() ||
        option == app.get_help_ptr() || option->get_lnames().front().starts_with("no-")) {
      continue;
    }
    const std::string key = option->get_lnames().front();
    const std::string type = option->get_type_name();  // "INT:[1, 1000000]"
    const bool number =
        type.starts_with("INT") || type.starts_with("UINT") || type.starts_with("FLOAT");
    const std::string wrong = option->get_expected_max() == 0 ? "\"true\""
                              : number                        ? "\"one\""
                                                              : "1";
    INFO(key << " = " << wrong);
    std::ofstream(file) << "\n" << key << " = " << wrong << "\n";
    const std::string error = parse_error({"--config", file.string()});
    CHECK_THAT(error, Catch::Contains("--" + key + ": must be"));
    ++refused;
  }
  CHECK(refused > 40);
}

TEST_CASE("the shipped configs parse and validate", "[config]") {
  int checked = 0;
  for (const auto& entry : std::filesystem::directory_iterator(CIFAR_SOURCE_DIR "/configs")) {
    if (entry.path().extension() != ".toml") continue;
    INFO(entry.path().string());
    TrainConfig c;
    REQUIRE_NOTHROW(c = parse({"--config", entry.path().string()}));
    CHECK_NOTHROW(validate(c));
    ++checked;
  }
  CHECK(checked >= 3);
}
