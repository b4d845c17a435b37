// test_config.cpp: each option's checks, the command line's range errors,
// config.toml read back with --config (any UTF-8 path included, text that
// is not UTF-8 refused at start), the shipped configs, and the typed options
// of cifar-eval, cifar-predict and cifar-export.
#include <catch2/catch.hpp>

#include <CLI/CLI.hpp>
#include <filesystem>
#include <fstream>

#include "cifar/app/config_file.h"
#include "cifar/core/errors.h"
#include "cifar/train/config.h"
#include "test_helpers.h"

using namespace cifar;

namespace {
// Parses a command line (and a config file, if it names one) into a config.
TrainConfig parse(std::vector<std::string> args) {
  TrainConfig c;
  CLI::App app;
  add_config_option(app, "config file");
  app.option_defaults()->multi_option_policy(CLI::MultiOptionPolicy::TakeLast);
  add_train_options(app, c);
  std::reverse(args.begin(), args.end());  // CLI11 takes them last-first
  app.parse(args);
  return c;
}

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
  bad([](TrainConfig& c) { c.lr = 0; }, "--lr must be positive, got 0");
  bad([](TrainConfig& c) { c.lr = 1e308; }, "--lr must be in (0, 1e+30], got 1e+308");
  bad([](TrainConfig& c) { c.threads = -1; }, "--threads must be at least 0, got -1");
  bad([](TrainConfig& c) { c.momentum = 1.0; }, "--momentum must be in [0, 1), got 1");
  bad([](TrainConfig& c) { c.momentum = -0.5; }, "--momentum must be at least 0, got -0.5");
  bad([](TrainConfig& c) { c.weight_decay = -1e-4; }, "--weight-decay must be at least 0");
  bad([](TrainConfig& c) { c.warmup_epochs = -1; }, "--warmup-epochs must be at least 0, got -1");
  bad([](TrainConfig& c) { c.eval_batch_size = 0; }, "--eval-batch-size must be at least 1, got 0");
  bad([](TrainConfig& c) { c.train_limit = -5; }, "--train-limit must be at least 0, got -5");
  bad([](TrainConfig& c) { c.log_interval_s = 0; }, "--log-interval must be positive, got 0");
  bad([](TrainConfig& c) { c.label_smoothing = 1.5; }, "--label-smoothing must be in [0, 1)");
  bad([](TrainConfig& c) { c.lr = std::nan(""); }, "--lr must be a finite number");
  bad(
      [](TrainConfig& c) {
        c.nesterov = true;
        c.momentum = 0;
      },
      "--nesterov needs --momentum above 0");
  bad([](TrainConfig& c) { c.model = "vgg"; }, "unknown model 'vgg'");
  CHECK_NOTHROW(validate(TrainConfig{}));
}

TEST_CASE("the command line refuses what does not fit, naming what was typed", "[config]") {
  CHECK_THAT(parse_error({"--epochs", "99999999999999999999"}),
             Catch::Contains("--epochs") && Catch::Contains("got 99999999999999999999"));
  CHECK_THAT(parse_error({"--seed", "-1"}), Catch::Contains("--seed") && Catch::Contains("got -1"));
  CHECK_THAT(parse_error({"--lr", "1e308"}), Catch::Contains("in (0, 1e+30]"));
  CHECK_THAT(parse_error({"--threads", "100000"}), Catch::Contains("--threads"));
  CHECK_THAT(parse_error({"--device", "tpu"}), Catch::Contains("'tpu' is not a device"));
  CHECK_THAT(parse_error({"--amp", "fp8"}), Catch::Contains("choose bf16, fp16 or off"));
  CHECK(parse({"--amp", "fp16"}).amp == AmpMode::kFp16);
  TrainConfig graphed_fp16 = parse({"--amp", "fp16", "--cuda-graph"});
  CHECK_THROWS_WITH(validate(graphed_fp16),
                    Catch::Contains("--amp fp16 cannot be used with --cuda-graph") &&
                        Catch::Contains("use --amp bf16 with --cuda-graph"));
  CHECK_THAT(parse_error({"--schedule", "exponential"}), Catch::Contains("unknown schedule"));
  CHECK_THAT(parse_error({"--lr", "abc"}), Catch::Contains("Could not convert"));
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

TEST_CASE("config.toml reads back as the same settings, every key of them", "[config]") {
  // Every field away from its default: a key that to_toml dropped would read
  // back as the default and break the equality.
  TrainConfig c;
  c.model = "resnet18";
  c.stem = ResNetStem::kImageNet;
  c.data_dir = "/data/cifar \"quoted\"";
  c.train_limit = 123;
  c.augment = true;
  c.device = parse_device("cuda:1");
  c.threads = 3;
  c.epochs = 7;
  c.batch_size = 96;
  c.lr = 0.123456789012345;
  c.momentum = 0.85;
  c.nesterov = true;
  c.weight_decay = 5e-4;
  c.schedule = Schedule::kCosine;
  c.warmup_epochs = 1.5;
  c.label_smoothing = 0.1;
  c.seed = 18446744073709551615ULL;
  c.amp = AmpMode::kBf16;
  c.channels_last = true;
  c.cuda_graph = true;
  c.cudnn_benchmark = false;
  c.tf32 = false;
  c.eval_batch_size = 500;
  c.recipe = RecipeName::kAirbench94;
  c.val_split = 77;
  c.eval_every = 3;
  c.tta = 2;
  c.checkpoint = "out/m #1.pt";
  c.run_dir = "runs/x";
  c.log_interval_s = 2.5;
  c.tensorboard = false;
  c.dist_timeout_s = 60;
  CHECK_FALSE(c == TrainConfig{});

  test::TempDir dir;
  const auto path = dir.path() / "config.toml";
  std::ofstream(path) << to_toml(c);
  const TrainConfig back = parse({"--config", path.string()});
  INFO(to_toml(c));
  CHECK(back == c);
  CHECK(to_toml(back) == to_toml(c));
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

namespace {
// to_toml, written to a file and read back with --config.
TrainConfig round_trip(const TrainConfig& c) {
  test::TempDir dir;
  const auto path = dir.path() / "config.toml";
  std::ofstream(path, std::ios::binary) << to_toml(c);
  return parse({"--config", path.string()});
}
}  // namespace

TEST_CASE("paths holding #, quotes, tabs, newlines and non-ASCII survive config.toml", "[config]") {
  // CLI11's own reader cut a value at the first '#', even inside quotes, and
  // read no escapes: these came back changed or not at all.
  const std::vector<std::string> paths = {"runs/a#b",
                                          "runs/#1 # not a comment",
                                          "it's \"quoted\"",
                                          "'single'",
                                          "\"double\"",
                                          "'''three'''",
                                          "\"\"\"three\"\"\"",
                                          "tab\there",
                                          "new\nline",
                                          "\nleading newline",
                                          "trailing newline\n",
                                          "cr\rlf\r\n",
                                          "back\\slash\\",
                                          " spaced  out ",
                                          "données/é ü 日本語 🙂",
                                          "del\x7f and \x01",
                                          "[not a section]",
                                          "key = value",
                                          "C:\\runs\\#2",
                                          "a\"\"\"b'''c"};
  for (const auto& path : paths) {
    INFO("path: " << path);
    TrainConfig c;
    c.run_dir = path;
    c.checkpoint = path + "/m.pt";
    c.data_dir = path;
    INFO(to_toml(c));
    const TrainConfig back = round_trip(c);
    CHECK(back.run_dir == c.run_dir);
    CHECK(back.checkpoint == c.checkpoint);
    CHECK(back.data_dir == c.data_dir);
    CHECK(back == c);
  }
}

TEST_CASE("text config.toml cannot hold (not UTF-8) is refused at start, naming the option",
          "[config]") {
  TrainConfig c;
  c.run_dir = "runs/caf\xe9";  // Latin-1
  CHECK_THROWS_AS(validate(c), UsageError);
  CHECK_THROWS_WITH(validate(c), Catch::Contains("--run-dir 'runs/caf\\xE9' is not UTF-8"));
  CHECK_THROWS_WITH(to_toml(c), Catch::Contains("--run-dir"));
  c.run_dir = "runs/café";
  c.checkpoint = "\xff\xfe.pt";
  CHECK_THROWS_WITH(validate(c), Catch::Contains("--checkpoint '\\xFF\\xFE.pt'"));
  c.checkpoint = "m.pt";
  c.data_dir = "data\xc0\xaf";  // an overlong '/', not UTF-8
  CHECK_THROWS_WITH(validate(c), Catch::Contains("--data"));
  c.data_dir = "data";
  CHECK_NOTHROW(validate(c));
  // --resume is not saved in config.toml: any file name will do.
  c.resume = "last\xff.pt";
  CHECK_NOTHROW(validate(c));
  // cifar-eval writes no config.toml: its paths may be any bytes.
  EvalConfig e;
  e.checkpoint = "m\xff.pt";
  CHECK_NOTHROW(validate(e));
}

TEST_CASE("a seed beyond TOML's 64-bit signed integers reads back", "[config]") {
  TrainConfig c;
  c.seed = 18446744073709551615ULL;
  CHECK_THAT(to_toml(c), Catch::Contains("seed = \"18446744073709551615\""));
  CHECK(round_trip(c).seed == c.seed);
  c.seed = 9223372036854775807ULL;
  CHECK_THAT(to_toml(c), Catch::Contains("seed = 9223372036854775807\n"));
  CHECK(round_trip(c).seed == c.seed);
}

namespace {
template <class Config>
Config parse_tool(void (*add)(CLI::App&, Config&), std::vector<std::string> args) {
  Config c;
  CLI::App app;
  app.option_defaults()->multi_option_policy(CLI::MultiOptionPolicy::TakeLast);  // as the apps
  add(app, c);
  std::reverse(args.begin(), args.end());
  app.parse(args);
  return c;
}
}  // namespace

TEST_CASE("cifar-eval, -predict and -export share typed Model options", "[config]") {
  const auto e = parse_tool(add_eval_options,
                            {"--weights", "w.pt", "-m", "resnet18", "--stem", "imagenet", "--mean",
                             "0.5,0.4,0.3", "--std", "0.2 0.25 0.3", "--tta", "-1", "--json"});
  CHECK(e.weights == "w.pt");
  CHECK(e.model == std::optional<std::string>("resnet18"));
  CHECK(e.stem == ResNetStem::kImageNet);
  REQUIRE(normalization(e));
  CHECK(normalization(e)->mean == Channels{0.5, 0.4, 0.3});
  CHECK(normalization(e)->std == Channels{0.2, 0.25, 0.3});
  CHECK(e.json);
  CHECK_NOTHROW(validate(e));
  const auto p = parse_tool(add_predict_options, {"-c", "m.pt", "-k", "3", "a.png", "b.jpg"});
  CHECK(p.checkpoint == "m.pt");
  CHECK(p.predict.top_k == 3);
  CHECK(p.images == std::vector<std::string>{"a.png", "b.jpg"});
  CHECK_FALSE(p.model);
  const auto x = parse_tool(add_export_options, {"--weights", "w.pt", "-o", "w.safetensors"});
  CHECK(x.out == "w.safetensors");

  auto error = [](auto add, const std::vector<std::string>& args) -> std::string {
    try {
      parse_tool(add, args);
    } catch (const CLI::ParseError& e) {
      return e.what();
    }
    return "";
  };
  CHECK_THAT(error(add_eval_options, {"--model", "vgg"}), Catch::Contains("unknown model 'vgg'"));
  CHECK_THAT(error(add_eval_options, {"--stem", "big"}), Catch::Contains("big"));
  CHECK_THAT(error(add_eval_options, {"--mean", "1,2"}), Catch::Contains("--mean takes three"));
  CHECK_THAT(error(add_predict_options, {"-c", "m.pt", "--std", "1,0,1"}),
             Catch::Contains("--std values must be > 0"));
  CHECK_THAT(error(add_predict_options, {"-c", "m.pt", "--top-k", "0", "a.png"}),
             Catch::Contains("--top-k") && Catch::Contains("got 0"));
  CHECK_THAT(error(add_predict_options, {"-c", "m.pt"}), Catch::Contains("images"));
  CHECK_THAT(error(add_export_options, {"-c", "m.pt"}), Catch::Contains("--out"));
  CHECK_THAT(error(add_eval_options, {"--tta", "3"}), Catch::Contains("--tta"));

  auto invalid = [](auto mutate, const std::string& message) {
    EvalConfig c;
    mutate(c);
    INFO(message);
    CHECK_THROWS_WITH(validate(c), Catch::Contains(message));
  };
  invalid([](EvalConfig&) {}, "give --checkpoint FILE (written by cifar-train) or --weights FILE");
  invalid(
      [](EvalConfig& c) {
        c.checkpoint = "m.pt";
        c.weights = "w.pt";
      },
      "--checkpoint and --weights both name the model");
  invalid(
      [](EvalConfig& c) {
        c.checkpoint = "m.pt";
        c.stem = ResNetStem::kCifar;
        c.mean = Channels{0.5, 0.5, 0.5};
      },
      "--stem, --mean go with --weights");
  invalid(
      [](EvalConfig& c) {
        c.weights = "w.pt";
        c.mean = Channels{0.5, 0.5, 0.5};
      },
      "--mean and --std go together: give --std too");
  invalid(
      [](EvalConfig& c) {
        c.checkpoint = "m.pt";
        c.batch_size = 0;
      },
      "--batch-size must be at least 1, got 0");
}
