// test_model_source.cpp: the settings that depend on the model are checked on
// the model a run really trains, whether --model names it or a checkpoint
// (--resume) or weights file (--init-weights) does, before anything is written.
#include <catch2/catch.hpp>

#include <filesystem>
#include <functional>
#include <string>
#include <vector>

#include "cifar/core/errors.h"
#include "cifar/io/checkpoint.h"
#include "cifar/io/weights_export.h"
#include "cifar/model/model_registry.h"
#include "cifar/train/train.h"
#include "test_helpers.h"

using namespace cifar;
using cifar::test::TempDir;
namespace fs = std::filesystem;

namespace {

// "refused" (a UsageError: the settings) or "accepted" (the settings passed:
// the run went on to read the data, which is absent). Nothing may be written.
std::string verdict(const TrainConfig& c, const fs::path& out) {
  std::string what;
  try {
    train(c);
    what = "trained";
  } catch (const UsageError& e) {
    what = std::string("refused");
    UNSCOPED_INFO(e.what());
  } catch (const std::exception& e) {
    what = std::string(e.what()).find("no-data") != std::string::npos ? "accepted" : e.what();
  }
  CHECK_FALSE(fs::exists(out / "run"));
  return what;
}

}  // namespace

TEST_CASE("a setting is judged on the model it resolves to, however the model was named",
          "[model_source]") {
  TempDir tmp;
  const std::vector<std::pair<std::string, std::function<void(TrainConfig&)>>> settings{
      {"nothing else", [](TrainConfig&) {}},
      {"--resolution-schedule 24x2",
       [](TrainConfig& c) {
         c.resolution_schedule = {24, 24};
       }},
      {"--resolution-schedule 16,32",
       [](TrainConfig& c) {
         c.resolution_schedule = {16, 32};
       }},
      {"--tta 3", [](TrainConfig& c) { c.tta = 3; }},
      {"--resolution-schedule 24 --epochs 3",
       [](TrainConfig& c) {
         c.resolution_schedule = {24};
         c.epochs = 3;
       }},
  };
  int refusals = 0;
  for (const ModelEntry& entry : model_registry()) {
    for (const ResNetStem stem : {ResNetStem::kCifar, ResNetStem::kImageNet}) {
      if (stem == ResNetStem::kImageNet && !entry.has_stem) continue;
      // The model as a checkpoint at epoch 1 and as a weights file.
      const std::string name = entry.name + "-" + to_string(stem);
      Classifier model = make_model(ModelOptions(entry.name).stem(stem).num_classes(10));
      CheckpointInfo info;
      info.model = entry.name;
      info.stem = to_string(stem);
      info.class_names = default_class_names();
      info.epoch = 1;
      info.run_id = "run " + name;
      save_checkpoint(tmp.path() / (name + ".pt"), info, *model, nullptr);
      export_weights(info, *model, tmp.path() / (name + ".safetensors"));

      for (const auto& [what, set] : settings) {
        TrainConfig named;
        named.data_dir = (tmp.path() / "no-data").string();
        named.device = *parse_device("cpu");
        named.run_dir = (tmp.path() / "run").string();
        named.checkpoint = (tmp.path() / "out.pt").string();
        named.epochs = 2;
        set(named);
        TrainConfig resumed = named;
        TrainConfig weights = named;
        named.model = entry.name;
        named.stem = stem;
        resumed.resume = (tmp.path() / (name + ".pt")).string();
        weights.init_weights = (tmp.path() / (name + ".safetensors")).string();
        INFO(name << " with " << what);
        const std::string by_model = verdict(named, tmp.path());
        CHECK(verdict(resumed, tmp.path()) == by_model);
        CHECK(verdict(weights, tmp.path()) == by_model);
        refusals += by_model == "refused" ? 1 : 0;
      }
    }
  }
  CHECK(refusals > 0);  // some settings do depend on the model
}

TEST_CASE("Stem: --stem is held to a resumed checkpoint's, as --model is", "[model_source]") {
  TempDir tmp;
  Classifier model = make_model(ModelOptions("resnet18").stem(ResNetStem::kCifar).num_classes(10));
  CheckpointInfo info;
  info.model = "resnet18";
  info.class_names = default_class_names();
  info.epoch = 1;
  save_checkpoint(tmp.path() / "r.pt", info, *model, nullptr);
  TrainConfig c;
  c.data_dir = (tmp.path() / "no-data").string();
  c.device = *parse_device("cpu");
  c.run_dir = (tmp.path() / "run").string();
  c.resume = (tmp.path() / "r.pt").string();
  c.stem = ResNetStem::kImageNet;
  CHECK_THROWS_WITH(train(c), Catch::Contains("holds a resnet18 with the cifar stem, but --stem "
                                              "is imagenet"));
  c.stem = ResNetStem::kCifar;
  CHECK_THROWS_WITH(train(c), Catch::Contains("no-data"));  // accepted: on to the data
}
