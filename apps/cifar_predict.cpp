// cifar-predict: classify one's own PNG and JPEG images, files or folders of them.
//
// The model comes from a cifar-train checkpoint or from a weights file
// (.safetensors, .pt, .pth): the "Model" options cifar-eval and cifar-export
// share (src/cifar/config/option_groups.h). One line per image, or one JSON
// array; --csv FILE also writes one row per image (and per named folder
// without an image); --csv - prints those rows in place of the lines.
#include <spdlog/spdlog.h>

#include <algorithm>

#include <CLI/CLI.hpp>
#include <iostream>
#include <optional>

#include "cifar/app/cli.h"
#include "cifar/app/std_streams.h"
#include "cifar/config/config.h"
#include "cifar/core/file_io.h"
#include "cifar/core/version.h"
#include "cifar/infer/predict.h"
#include "cifar/platform/interrupt.h"
#include "cifar/resolve/inference.h"

int main(int argc, char** argv) {
  cifar::open_closed_standard_fds();  // before any file is opened (std_streams.h)
  cifar::PredictConfig config;
  cifar::LogOptions log;

  CLI::App app{"cifar-predict: classify PNG and JPEG images with a trained model", "cifar-predict"};
  app.set_version_flag("--version", cifar::version_line("cifar-predict"));
  app.option_defaults()->multi_option_policy(CLI::MultiOptionPolicy::TakeLast);
  cifar::add_predict_options(app, config);
  cifar::add_log_flags(app, log);

  return cifar::run_cli(app, argc, argv, log, [&] {
    config.machine = cifar::machine_env_from_environment();  // as cifar-train
    config.spare_cache_dir = cifar::spare_cache_dir_from_environment();
    // A Ctrl-C or SIGTERM stops the work between images (exit 130), before any output.
    std::optional<cifar::InterruptGuard> interrupt_guard(std::in_place, cifar::kPredictionNotice);
    // The images listed, --csv checked, the model loaded on its device, the TTA level.
    cifar::PredictRun run = cifar::resolve_predict(config);
    const cifar::ImageList& images = run.images;
    // A row per image, and one per named folder without an image.
    const auto predictions = cifar::with_empty_folders(
        cifar::predict_files(*run.checkpoint.model, run.checkpoint.info, images.files, run.options),
        images.empty_folders);
    interrupt_guard.reset();  // `| head` ends the output as it ends any program's
    int failed = 0;
    for (const auto& p : predictions) {
      if (!p.error.empty()) {
        ++failed;
        spdlog::error("{}", p.error);
      }
    }
    const int64_t k = std::min(run.options.top_k, run.checkpoint.info.num_classes);
    if (config.json) {
      std::cout << cifar::predictions_to_json(predictions) << '\n';
    } else if (config.csv == "-") {  // the CSV in place of the lines
      std::cout << cifar::predictions_to_csv(predictions, k);
    } else {
      for (const auto& p : predictions) {
        if (p.error.empty()) std::cout << cifar::format_prediction(p) << '\n';
      }
    }
    if (!config.csv.empty() && config.csv != "-") {
      cifar::write_file_atomically(config.csv, cifar::predictions_to_csv(predictions, k), "--csv");
    }
    const auto unreadable = static_cast<size_t>(failed) - images.empty_folders.size();
    if (unreadable > 0) {
      spdlog::error("{} of {} images could not be classified", unreadable, images.files.size());
    }
    return failed > 0 ? 1 : 0;
  });
}
