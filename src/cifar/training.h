// training.h: the training job, from options to a checkpoint and a report.
//
// train() reads as the steps of a run: choose the device, read the data and
// move it to the device once, build (or resume) the model and optimizer, check
// that every output can be written, then per epoch: train_one_epoch,
// evaluate, log a line, append to metrics.csv and write checkpoints. Loss and
// accuracy accumulate on the device and are read back once per progress
// refresh and once per epoch, never per step.
#pragma once

#include <torch/torch.h>

#include <cstdint>
#include <filesystem>
#include <optional>
#include <string>
#include <vector>

#include "cifar/loader.h"
#include "cifar/models.h"
#include "cifar/optim.h"
#include "cifar/reporting.h"

namespace cifar {

enum class AmpMode { kOff, kBf16 };
AmpMode parse_amp(const std::string& text);  // UsageError for fp16 and unknown names

// Every setting of a run, with its default. Filled from the command line or a
// config file by cifar-train; validate() checks it before anything runs.
struct TrainConfig {
  // Model: empty means "net", or the checkpoint's model when resuming.
  std::string model;
  std::string stem = "cifar";
  // Data
  std::optional<std::string> data_dir;  // else $CIFAR10_DIR, else data/cifar-10-batches-bin
  int64_t train_limit = 0;              // use only the first N training images (0: all)
  // Device and threads
  std::string device = "auto";
  int threads = 0;  // 0: chosen by batch size (see choose_cpu_plan in training.cpp)
  // Optimisation (defaults: the PyTorch tutorial)
  int64_t epochs = 2;
  int64_t batch_size = 4;
  double lr = 0.001;
  double momentum = 0.9;
  bool nesterov = false;
  double weight_decay = 0.0;
  std::string schedule = "constant";
  double warmup_epochs = 0.0;
  double label_smoothing = 0.0;
  bool augment = false;
  uint64_t seed = 0;
  // Speed
  std::string amp = "off";
  bool channels_last = false;
  bool cuda_graph = false;
  bool cudnn_benchmark = true;
  bool tf32 = true;
  int64_t eval_batch_size = 1000;
  // Outputs
  std::string checkpoint;  // default: <model>.pt
  std::string run_dir;     // default: runs/<date>-<time>-<model>
  std::string resume;      // a checkpoint to continue from
  // Reporting
  bool progress_bar = false;   // redraw a bar (stderr is a terminal)
  double log_interval_s = 10;  // seconds between progress refreshes
};

// Throws UsageError naming the option and the offending value.
void validate(const TrainConfig& config);

// The settings as TOML that cifar-train --config reads back (keys are the
// long option names). Leaves out what only applies to one invocation
// (--resume, --config).
std::string to_toml(const TrainConfig& config);

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

TrainResult train(const TrainConfig& config);

// Evaluating a checkpoint: everything about the model comes from the file.
struct EvalConfig {
  std::string checkpoint;
  std::optional<std::string> data_dir;
  std::string device = "auto";
  int64_t batch_size = 1000;
  std::string amp = "off";
};

struct EvalReport {
  std::string model;
  std::string device;
  EvalResult result;
  std::vector<std::string> class_names;
};

EvalReport evaluate_checkpoint(const EvalConfig& config);

// --- The pieces train() is made of ---------------------------------------------

struct EpochStats {
  double loss = 0;  // mean over the samples seen
  double accuracy = 0;
  int64_t images = 0;
  int64_t steps = 0;  // steps completed this epoch, counting from step 0
  double seconds = 0;
  int64_t peak_memory_bytes = 0;
  double last_lr = 0;
  bool interrupted = false;
};

struct EpochSettings {
  int64_t epoch = 1;  // 1-based
  int64_t epochs = 1;
  int64_t batch_size = 4;
  int64_t first_step = 0;   // > 0 when resuming mid-epoch
  int64_t global_step = 0;  // of first_step
  ScheduleOptions schedule;
  double label_smoothing = 0;
  AmpMode amp = AmpMode::kOff;
  bool cuda_graph = false;
  bool progress_bar = false;
  double log_interval_s = 10;
};

EpochStats train_one_epoch(ClassifierImpl& model, Sgd& optimizer, const DeviceDataset& data,
                           const EpochPlan& plan, const EpochSettings& settings);

// Accuracy, loss and confusion matrix on a whole split, in inference mode.
EvalResult evaluate(ClassifierImpl& model, const DeviceDataset& data, int64_t batch_size,
                    AmpMode amp = AmpMode::kOff, int64_t num_classes = 10);

}  // namespace cifar
