// cifar-predict: classify one's own PNG and JPEG images.
//
// The model comes from a cifar-train checkpoint or from a weights file
// (.safetensors, .pt, .pth); one line per image, or one JSON array.
#include <fmt/ranges.h>
#include <spdlog/spdlog.h>

#include <CLI/CLI.hpp>
#include <iostream>

#include "cifar/app/cli.h"
#include "cifar/core/errors.h"
#include "cifar/core/version.h"
#include "cifar/io/checkpoint.h"
#include "cifar/io/weights.h"
#include "cifar/train/config.h"
#include "cifar/train/predict.h"

int main(int argc, char** argv) {
  cifar::LogOptions log;
  std::string checkpoint, weights, model, stem;
  std::string mean, stdev;
  std::vector<std::string> files;
  cifar::PredictOptions options;
  bool json = false;

  CLI::App app{"cifar-predict: classify PNG and JPEG images with a trained model", "cifar-predict"};
  app.set_version_flag("--version", cifar::version_line("cifar-predict"));
  auto* ckpt = app.add_option("-c,--checkpoint", checkpoint, "Checkpoint written by cifar-train")
                   ->group("Model");
  auto* w = app.add_option("-w,--weights", weights,
                           "Weights file (.safetensors, .pt, .pth) instead of a checkpoint")
                ->group("Model");
  ckpt->excludes(w);
  app.add_option("-m,--model", model,
                 "With --weights: net or resnet18 (default: the file's metadata)")
      ->group("Model");
  app.add_option("--stem", stem,
                 "With --weights: cifar or imagenet (default: metadata, else cifar)")
      ->group("Model");
  app.add_option("--mean", mean, cifar::kMeanHelp)->group("Model");
  app.add_option("--std", stdev, cifar::kStdHelp)->group("Model");
  app.add_option("images", files, "PNG or JPEG files")->required();
  app.add_option("-k,--top-k", options.top_k, "Classes to report per image")->group("Output");
  app.add_flag("--json", json, "Print one JSON array, an object per image")->group("Output");
  app.add_flag("--logits", options.logits, "With --json: add each image's raw logits")
      ->group("Output");
  app.add_option("-b,--batch-size", options.batch_size, "Images per forward pass");
  cifar::add_log_flags(app, log);

  return cifar::run_cli(app, argc, argv, log, [&] {
    if (checkpoint.empty() == weights.empty()) {
      throw cifar::UsageError("pass --checkpoint FILE or --weights FILE");
    }
    if (options.batch_size < 1) {
      throw cifar::UsageError(
          fmt::format("--batch-size must be at least 1, got {}", options.batch_size));
    }
    cifar::LoadedCheckpoint loaded;
    if (!checkpoint.empty()) {
      loaded = cifar::load_checkpoint(checkpoint);
    } else {
      cifar::WeightsOptions wo;
      if (!model.empty()) wo.model = model;
      if (!stem.empty()) wo.stem = stem;
      wo.normalization = cifar::normalization_from_flags(mean, stdev);
      auto lw = cifar::load_weights(weights, wo);
      spdlog::info("normalisation: mean [{}] std [{}], {}",
                   fmt::join(lw.info.normalization.mean, ", "),
                   fmt::join(lw.info.normalization.std, ", "), lw.normalization_note);
      loaded = cifar::weights_as_checkpoint(std::move(lw));
    }
    loaded.model->eval();
    const auto predictions = cifar::predict_files(*loaded.model, loaded.info, files, options);
    int failed = 0;
    for (const auto& p : predictions) {
      if (!p.error.empty()) {
        ++failed;
        spdlog::error("{}", p.error);
      }
    }
    if (json) {
      std::cout << cifar::predictions_to_json(predictions) << '\n';
    } else {
      for (const auto& p : predictions) {
        if (p.error.empty()) std::cout << cifar::format_prediction(p) << '\n';
      }
    }
    if (failed > 0) {
      spdlog::error("{} of {} images could not be classified", failed, predictions.size());
    }
    return failed > 0 ? 1 : 0;
  });
}
