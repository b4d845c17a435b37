// test_refused_values.cpp: the names and values the user types that the lower
// layers only look up or read (the model, optimiser and data-set registries,
// the enums' name tables, --device, --resolution-schedule, the images'
// options, a config file's TOML), refused by config/ as UsageErrors (exit
// status 2) with the lower layers' old messages, word for word (issue 46).
#include <catch2/catch.hpp>

#include <CLI/CLI.hpp>
#include <string>
#include <utility>
#include <vector>

#include "cifar/config/config.h"
#include "cifar/config/config_file.h"
#include "cifar/core/errors.h"
#include "cifar/formats/toml_text.h"
#include "config/parse_train.h"

using namespace cifar;
using test::parse;

namespace {

// CLI11's refusal of a cifar-train command line, or "" when it parses.
std::string cli_refusal(const std::vector<std::string>& args) {
  try {
    parse(args);
  } catch (const CLI::ParseError& e) {
    return e.what();
  }
  return "";
}

// validate's UsageError for a config filled in code, or "".
template <class Config>
std::string validate_refusal(const Config& c) {
  try {
    validate(c);
  } catch (const UsageError& e) {
    return e.what();
  }
  return "";
}

}  // namespace

TEST_CASE("a name no table holds is refused by config/, listing the choices", "[config]") {
  const std::vector<std::pair<std::vector<std::string>, std::string>> refused = {
      {{"--model", "vgg"},
       "unknown model 'vgg': choose net, resnet18, airbench94 or efficientnet_lite0"},
      {{"--stem", "big"}, "unknown ResNet stem 'big': choose cifar or imagenet"},
      {{"--schedule", "exponential"},
       "unknown schedule 'exponential': choose constant, step, cosine, onecycle or linear"},
      {{"--amp", "fp8"}, "unknown --amp 'fp8': choose auto, bf16, fp16 or off"},
      {{"--labels", "medium"}, "unknown --labels 'medium': choose fine or coarse"},
      {{"--optimizer", "adam"}, "unknown --optimizer 'adam': choose sgd, adamw or lion"},
      {{"--dataset", "imagenet"},
       "unknown --dataset 'imagenet': choose auto (detected from the folder), cifar10, cifar100 "
       "or folder"},
      {{"--crop-mode", "fit"},
       "unknown crop mode 'fit': use center (the shorter side resized, aspect ratio kept, the "
       "centre cropped: torchvision's) or squash (the whole image resized, aspect ratio not "
       "kept)"},
      {{"--device", "tpu"},
       "--device 'tpu' is not a device: use auto, cpu, cuda or cuda:N (N = 0, 1, ...); "
       "cifar-train --list-devices shows what this machine has"},
  };
  for (const auto& [args, message] : refused) {
    INFO(args[0] << " " << args[1]);
    CHECK_THAT(cli_refusal(args), Catch::Contains(message));
  }
  for (const char* bad : {"cuda:", "cuda:-1", "cuda:x", "cuda:1x", "CPU", "cuda:0:1"}) {
    INFO(bad);
    CHECK_THAT(cli_refusal({"--device", bad}), Catch::Contains("is not a device"));
  }
  // Names are exact, and each table's own pass.
  CHECK_THAT(cli_refusal({"--optimizer", "SGD"}), Catch::Contains("unknown --optimizer 'SGD'"));
  const TrainConfig c = parse({"--model", "resnet18", "--stem", "imagenet", "--optimizer", "lion",
                               "--labels", "coarse", "--dataset", "cifar100", "--crop-mode",
                               "center", "--device", "gpu", "--schedule", "linear"});
  CHECK(c.model == "resnet18");
  CHECK(c.stem == ResNetStem::kImageNet);
  CHECK(c.optimizer == "lion");
  CHECK(c.labels == LabelSet::kCoarse);
  CHECK(c.dataset == "cifar100");
  CHECK(c.crop_mode == "center");
  CHECK(c.device.kind == DeviceRequest::Kind::kCuda);
  CHECK(c.schedule == Schedule::kLinear);
}

TEST_CASE("names in a config filled in code are refused by validate", "[config]") {
  TrainConfig c;
  c.optimizer = "adam";
  CHECK(validate_refusal(c) == "unknown --optimizer 'adam': choose sgd, adamw or lion");
  c = TrainConfig{};
  c.dataset = "imagenet";
  CHECK_THAT(validate_refusal(c), Catch::StartsWith("unknown --dataset 'imagenet': choose auto"));
  c = TrainConfig{};
  c.crop_mode = "fit";
  CHECK_THAT(validate_refusal(c), Catch::StartsWith("unknown crop mode 'fit': use center"));
  c = TrainConfig{};
  c.model = "vgg";
  CHECK(validate_refusal(c) ==
        "unknown model 'vgg': choose net, resnet18, airbench94 or efficientnet_lite0");
}

TEST_CASE("a bad --resolution-schedule is refused naming the item and why", "[config]") {
  const std::string hint =
      "; write sizes in px, each optionally repeated, e.g. 24x3,28x3 (epochs 1-3 at 24 px, 4-6 "
      "at 28 px, the rest at full size)";
  CHECK_THAT(cli_refusal({"--resolution-schedule", "24x3,12"}),
             Catch::Contains("--resolution-schedule '24x3,12': '12' is not a size from 16 to "
                             "1024 px" +
                             hint));
  CHECK_THAT(cli_refusal({"--resolution-schedule", "24x0"}),
             Catch::Contains("'24x0' has a repeat not from 1 to 100000" + hint));
  CHECK_THAT(cli_refusal({"--resolution-schedule", "24x99999,28x2"}),
             Catch::Contains("'28x2' takes the schedule past 100000 epochs" + hint));
  for (const std::string bad : {"8", "1025", "x3", "abc", "24,,28", "24,", "+24", "24 x3"}) {
    INFO(bad);
    CHECK_THAT(cli_refusal({"--resolution-schedule", bad}),
               Catch::Contains("--resolution-schedule '" + bad + "'"));
  }
  CHECK(parse({"--resolution-schedule", "24x2,28"}).resolution_schedule ==
        std::vector<int64_t>{24, 24, 28});
}

TEST_CASE("an --image-size and a --crop-pct below their least are refused", "[config]") {
  TrainConfig c;
  c.image_size = 5;
  CHECK(validate_refusal(c) ==
        "--image-size must be 0 (the data set's own size) or from 8 to 1024 px, "
        "got 5");
  c = TrainConfig{};
  c.crop_pct = 0.1;
  CHECK(validate_refusal(c) ==
        "--crop-pct must be 0 (the data set's) or from 0.25 to 1 (the share of the resized "
        "image's side the centre crop keeps; 0.875 is torchvision's), got 0.1");
  for (const auto& [size, pct] : {std::pair<int64_t, double>{0, 0}, {8, 0.25}, {1024, 1}}) {
    CHECK_NOTHROW(check_image_options(size, pct, "unset", "unset"));
  }
  // The tools' --weights take the same check, the file's metadata standing in,
  // where their model input is resolved (tests/resolve/test_model_input.cpp).
}

TEST_CASE("settings text that is not flat TOML is the user's to fix in config/", "[config]") {
  // The TOML reader's error is its own; config/ makes it a UsageError, same text and line.
  CHECK_THROWS_MATCHES(read_flat_toml("a = 1\n[s]\n"), TomlError,
                       Catch::Matchers::Predicate<TomlError>([](const TomlError& e) {
                         return dynamic_cast<const UsageError*>(&e) == nullptr;
                       }));
  try {
    read_settings_toml("a = 1\n[s]\n");
    FAIL("a [section] was read");
  } catch (const ConfigFileError& e) {
    const UsageError& usage = e;
    CHECK_THAT(usage.what(), Catch::StartsWith("line 2 starts a section ([s])"));
    CHECK(e.line() == 2);
  }
  CHECK_THROWS_AS(from_toml("epochs = 3\nlr = [1, 2]\n"), UsageError);  // a saved settings' text
  // A NUL in a string would cut a path short at the system (victim.pt\0.new wrote victim.pt).
  CHECK_THROWS_WITH(read_settings_toml("epochs = 1\ncheckpoint = \"victim.pt\\u0000.new\"\n"),
                    Catch::Contains("line 2: 'checkpoint' holds a NUL character"));
}
