// train.h: the training job, from settings to checkpoints and a report.
//
// train() reads as the steps of a run: choose the device; load the
// checkpoint to resume, if any; read the data and move it to the device once;
// only then create the outputs; build the model and optimizer; then per
// epoch: train_one_epoch, evaluate, log a line, append to metrics.csv and
// write checkpoints. A stop request writes a checkpoint of the last completed
// step and throws Interrupted with the command that resumes. Launched several
// times (torchrun), the processes train one model on their shares of each
// batch; with one process every exchange returns at once.
#pragma once

#include <cstdint>
#include <filesystem>
#include <string>
#include <thread>
#include <vector>

#include "cifar/dist/distributed.h"
#include "cifar/report/metrics.h"
#include "cifar/train/config.h"

namespace cifar {

// What the app knows about how it was started; the library reads no
// environment of its own.
struct RunEnv {
  std::string program = "cifar-train";  // argv[0], for the hints the tool prints
  bool progress_bar = false;            // stderr is a terminal
  int64_t hardware_threads = std::thread::hardware_concurrency();
  int64_t omp_num_threads = 0;  // $OMP_NUM_THREADS (torchrun sets 1), used when --threads is 0
  DistEnv dist;                 // the launcher's RANK, WORLD_SIZE, ... (one process by default)
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
