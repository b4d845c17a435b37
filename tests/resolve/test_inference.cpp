// test_inference.cpp: the runs of cifar-eval, cifar-predict and cifar-export
// as resolve/inference.h makes them: the TTA level chosen and where it came
// from, and each refusal of those tools' settings, naming the option.
#include <catch2/catch.hpp>

#include <string>

#include "cifar/core/errors.h"
#include "cifar/core/file_io.h"
#include "cifar/io/weights.h"
#include "cifar/platform/device.h"
#include "cifar/resolve/inference.h"
#include "test_helpers.h"

using namespace cifar;
using cifar::test::TempDir;

namespace {
template <class F>
std::string refused(F&& f) {
  try {
    f();
  } catch (const UsageError& e) {
    return e.what();
  }
  return "";
}

// A net checkpoint that says TTA level `tta`.
std::string write_checkpoint(const TempDir& dir, int64_t tta) {
  CheckpointInfo info;
  info.class_names = default_class_names();
  info.libtorch_version = "2.11.0";
  info.tta = tta;
  const auto path = dir.path() / ("net" + std::to_string(tta) + ".pt");
  save_checkpoint(path, info, *make_model(ModelOptions("net")), nullptr);
  return path.string();
}
}  // namespace

TEST_CASE("cifar-eval's TTA level is the checkpoint's unless --tta says", "[resolve]") {
  TempDir dir;
  test::write_bytes(dir.path() / "test_batch.bin", test::make_records(10000));  // the test split
  EvalConfig config;
  config.checkpoint = write_checkpoint(dir, 1);
  config.data_dir = dir.path().string();
  const EvalRun from_file = resolve_eval(config);
  CHECK(from_file.test.labels.size(0) == 10000);  // read, and its classes checked, before the run
  CHECK(from_file.tta == 1);
  CHECK(from_file.tta_source == "level 1, the checkpoint's (--tta to choose another)");
  CHECK(from_file.checkpoint.info.model == "net");
  config.tta = 0;
  const EvalRun chosen = resolve_eval(config);
  CHECK(chosen.tta == 0);
  CHECK(chosen.tta_source == "level 0 (--tta)");
  // A weights file carries none: 0.
  export_weights(from_file.checkpoint.info, *from_file.checkpoint.model,
                 dir.path() / "net.safetensors");
  EvalConfig weights;
  weights.weights = (dir.path() / "net.safetensors").string();
  weights.data_dir = config.data_dir;
  CHECK(resolve_eval(weights).tta_source == "level 0 (weights files carry none)");
  // A checkpoint given as --weights carries its own.
  weights.weights = config.checkpoint;
  const EvalRun checkpoint_as_weights = resolve_eval(weights);
  CHECK(checkpoint_as_weights.tta == 1);
  CHECK(checkpoint_as_weights.tta_source == "level 1, the checkpoint's (--tta to choose another)");

  config.tta = 5;  // the option's range (config/), before the model is read
  config.checkpoint = "missing.pt";
  CHECK_THAT(refused([&] { resolve_eval(config); }), Catch::Contains("--tta"));
}

TEST_CASE("cifar-eval refuses --split for a folder of class folders", "[resolve]") {
  TempDir dir;
  const auto photos = dir.path() / "photos";
  std::filesystem::create_directories(photos / "cat");
  std::filesystem::create_directories(photos / "dog");
  EvalConfig config;
  config.checkpoint = (dir.path() / "missing.pt").string();  // refused before it is read
  config.data_dir = photos.string();
  config.split = Split::kTrain;
  CHECK(refused([&] { resolve_eval(config); }) ==
        "--split train names a split of a data set, but " + photos.string() +
            " is a folder of class folders (<class>/*.png|jpg|jpeg), evaluated whole: drop "
            "--split");
}

TEST_CASE("cifar-predict's run: --top-k checked, level 3 predicted as 2", "[resolve]") {
  TempDir dir;
  PredictConfig config;
  config.checkpoint = write_checkpoint(dir, 3);
  config.images = {(dir.path() / "a.png").string()};
  config.device = *parse_device("cpu");
  config.top_k = 0;
  CHECK(refused([&] { resolve_predict(config); }) == "--top-k must be at least 1, got 0");
  config.top_k = 2;
  const PredictRun run = resolve_predict(config);
  CHECK(run.options.tta == 2);
  CHECK(run.options.top_k == 2);
  CHECK(run.images.files == config.images);
  CHECK_FALSE(run.checkpoint.model->is_training());
  config.csv = config.images[0];  // --csv onto an image
  CHECK_THAT(refused([&] { resolve_predict(config); }), Catch::Contains("--csv"));
}

TEST_CASE("cifar-export's --out is refused before the model is read", "[resolve]") {
  TempDir dir;
  ExportConfig config;
  config.checkpoint = (dir.path() / "missing.pt").string();
  config.out = (dir.path() / "net.onnx").string();
  CHECK(refused([&] { resolve_export(config); }) ==
        "weights file " + config.out +
            ": unknown extension '.onnx'; use .safetensors, .pt or .pth (ONNX: write a "
            ".safetensors, then run scripts/python/export_onnx.py FILE.safetensors FILE.onnx)");
  config.out = (dir.path() / "notes.pt").string();
  write_file_atomically(config.out, "not weights", "test");
  CHECK_THAT(refused([&] { resolve_export(config); }),
             Catch::Contains("holds something cifar-export did not write"));
  config.checkpoint = write_checkpoint(dir, 0);
  config.out = (dir.path() / "net.safetensors").string();
  CHECK(resolve_export(config).info.model == "net");
}
