// cifar-predict: classify one's own PNG and JPEG images.
//
// The model comes from a cifar-train checkpoint or from a weights file
// (.safetensors, .pt, .pth): the "Model" options cifar-eval and cifar-export
// share (src/cifar/config/option_groups.h). One line per image, or one JSON array.
#include <spdlog/spdlog.h>

#include <thread>

#include <CLI/CLI.hpp>
#include <iostream>

#include "cifar/app/cli.h"
#include "cifar/app/std_streams.h"
#include "cifar/config/config.h"
#include "cifar/core/version.h"
#include "cifar/infer/model_input.h"
#include "cifar/infer/predict.h"
#include "cifar/platform/device.h"

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
    cifar::validate(config);
    config.predict.hardware_threads = static_cast<int64_t>(std::thread::hardware_concurrency());
    cifar::LoadedCheckpoint loaded = cifar::load_model_input(config);  // on the CPU
    config.predict.device = cifar::use_device(config.device);
    loaded.model->to(config.predict.device);
    loaded.model->eval();
    const auto predictions =
        cifar::predict_files(*loaded.model, loaded.info, config.images, config.predict);
    int failed = 0;
    for (const auto& p : predictions) {
      if (!p.error.empty()) {
        ++failed;
        spdlog::error("{}", p.error);
      }
    }
    if (config.json) {
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
