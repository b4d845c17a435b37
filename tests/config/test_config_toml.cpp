// test_config_toml.cpp: config.toml read back with --config as the same
// settings (any UTF-8 path included, text that is not UTF-8 refused at
// start, a seed beyond TOML's signed integers).
#include <catch2/catch.hpp>

#include <filesystem>
#include <fstream>

#include "cifar/config/config.h"
#include "cifar/core/errors.h"
#include "config/parse_train.h"
#include "test_helpers.h"

using namespace cifar;
using test::parse;

TEST_CASE("config.toml reads back as the same settings, every key of them", "[config]") {
  // Every field away from its default: a key that to_toml dropped would read
  // back as the default and break the equality.
  TrainConfig c;
  c.model = "resnet18";
  c.stem = ResNetStem::kImageNet;
  c.data_dir = "/data/cifar \"quoted\"";
  c.train_limit = 123;
  c.test_limit = 456;
  c.augment = true;
  c.device = *parse_device("cuda:1");
  c.threads = 3;
  c.epochs = 7;
  c.batch_size = 96;
  c.lr = 0.123456789012345;
  c.momentum = 0.85;
  c.nesterov = true;
  c.weight_decay = 5e-4;
  c.optimizer_args.at("beta2") = 0.95;  // a declared hyperparameter given; the others unset
  c.schedule = Schedule::kCosine;
  c.warmup_epochs = 1.5;
  c.step.label_smoothing = 0.1;
  c.seed = 18446744073709551615ULL;
  c.amp = AmpMode::kBf16;
  c.channels_last = true;
  c.cuda_graph = true;
  c.cudnn_benchmark = false;
  c.tf32 = false;
  c.eval_batch_size = 500;
  c.recipe = "airbench94";
  c.val_split = 77;
  c.eval_every = 3;
  c.tta = 3;
  c.resolution_schedule = {24, 24, 28};
  c.checkpoint = "out/m #1.pt";
  c.run_dir = "runs/x";
  c.log_interval_s = 2.5;
  c.tensorboard = false;
  c.dist_timeout_s = 60;
  c.freeze_body = true;
  c.body_lr_scale = 0.5;
  c.train_from = "_blocks.12";
  c.bn_momentum = 0.05;
  c.dataset = "cifar100";
  c.labels = LabelSet::kCoarse;
  c.skip_bad_images = true;
  c.image_size = 48;
  c.crop_mode = "squash";
  c.crop_pct = 0.9;
  c.crop_scale = 0.25;
  c.optimizer = "adamw";
  c.optimizer_args.at("beta1") = 0.8;
  c.optimizer_args.at("eps") = 1e-6;
  c.ema = 0.999;
  c.deterministic = true;
  c.init_weights = "/weights/resnet18 #2.pth";
  c.init_weights_sha256 = "5fdabae34f85e4a4448d56b73856866d963824e468d43a266b18a1aac6ee983d";
  c.mean = {0.485, 0.456, 0.406};
  c.std = {0.229, 0.224, 0.225};
  CHECK_FALSE(c == TrainConfig{});
  for (const auto& [key, role] : train_setting_roles()) {  // every saved key is written
    INFO(key);
    CHECK_THAT(to_toml(c), Catch::Contains("\n" + key + " = "));
  }

  test::TempDir dir;
  const auto path = dir.path() / "config.toml";
  std::ofstream(path) << to_toml(c);
  const TrainConfig back = parse({"--config", path.string()});
  INFO(to_toml(c));
  CHECK(back == c);
  CHECK(to_toml(back) == to_toml(c));
  // Read back in code (a checkpoint's saved settings) as --config reads it.
  CHECK(from_toml(to_toml(c)) == c);
  CHECK(from_toml("gone-since = 3\n" + to_toml(c)) == c);  // a key since dropped is skipped
  CHECK_THROWS(from_toml("epochs = 0\n"));
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
    CHECK(from_toml(to_toml(c)) == c);
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

TEST_CASE("a flag's last word wins, and the command line's over the config file's", "[config]") {
  CHECK(parse({"--no-augment", "--augment"}).augment);
  CHECK_FALSE(parse({"--augment", "--no-augment"}).augment);
  test::TempDir dir;
  const auto path = dir.path() / "c.toml";
  std::ofstream(path) << "no-augment = true\nno-tensorboard = true\n";
  const TrainConfig file = parse({"--config", path.string()});
  CHECK_FALSE(file.augment);
  CHECK_FALSE(file.tensorboard);
  const TrainConfig over = parse({"--config", path.string(), "--augment", "--tensorboard"});
  CHECK(over.augment);
  CHECK(over.tensorboard);
}
