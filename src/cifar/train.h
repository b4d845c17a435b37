// train.h: the training job, from settings to checkpoints and a report.
//
// train() reads as the steps of a run: choose the device; load the
// checkpoint to resume, if any; read the data and move it to the device once;
// only then create the outputs; build the model and optimizer; then per
// epoch: train_one_epoch, evaluate, log a line, append to metrics.csv and
// write checkpoints. A stop request writes a checkpoint of the last completed
// step and throws Interrupted with the command that resumes.
#pragma once

#include <cstdint>
#include <filesystem>
#include <string>
#include <thread>
#include <vector>

#include "cifar/config.h"
#include "cifar/metrics.h"

namespace cifar {

// What the app knows about how it was started; the library reads no
// environment of its own.
struct RunEnv {
  std::string program = "cifar-train";  // argv[0], for the hints the tool prints
  bool progress_bar = false;            // stderr is a terminal
  int64_t hardware_threads = std::thread::hardware_concurrency();
};

struct TrainResult {
  std::string model;
  std::string device;
  std::vector<EpochMetrics> history;  // epochs run by this invocation
  EvalResult final_eval;
  std::vector<std::string> class_names;
  std::filesystem::path checkpoint;
  std::filesystem::path best_checkpoint;
  std::filesystem::path run_dir;
};

TrainResult train(const TrainConfig& config, const RunEnv& env = {});

}  // namespace cifar
