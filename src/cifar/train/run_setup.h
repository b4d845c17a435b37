// run_setup.h: the smaller pieces train() is assembled from.
//
// Resolving the settings that are saved, loading the checkpoint to resume,
// the training split with --train-limit, warnings for options that do
// nothing here, the checkpoint header's fixed part, an epoch's metrics row,
// TensorBoard's hyperparameters, and a guard for spdlog's level.
#pragma once

#include <spdlog/spdlog.h>
#include <torch/torch.h>

#include <filesystem>
#include <optional>
#include <string>
#include <vector>

#include "cifar/core/file_identity.h"
#include "cifar/data/data.h"
#include "cifar/formats/tensorboard.h"
#include "cifar/io/checkpoint.h"
#include "cifar/report/metrics.h"
#include "cifar/train/config.h"
#include "cifar/train/epoch.h"

namespace cifar {

// spdlog's level for a scope (ranks other than 0 log warnings only).
class LogLevelGuard {
 public:
  explicit LogLevelGuard(spdlog::level::level_enum level);
  ~LogLevelGuard();
  LogLevelGuard(const LogLevelGuard&) = delete;
  LogLevelGuard& operator=(const LogLevelGuard&) = delete;

 private:
  spdlog::level::level_enum old_;
};

// What TensorBoard's HPARAMS tab shows of a run.
std::vector<HParam> hparams_of(const TrainConfig& c);

// Options that would do nothing here are said to do nothing, once.
void warn_ignored(const TrainConfig& c, const std::string& model, const torch::Device& device);

// The checkpoint --resume names, checked against --model and --epochs.
std::optional<LoadedCheckpoint> load_resume(const TrainConfig& c);

// The training split: --val-split N images held out for validation (chosen
// by --seed from the whole split, so the same for any --train-limit), the
// rest cut to --train-limit.
TrainValSplit read_train_split(const TrainConfig& c);

// The test split, cut to its first --test-limit images.
Cifar10Dataset read_test_split(const TrainConfig& c);

// What the data is and what it means for the run: the split sizes, how
// best.pt is chosen, and (rank 0, as warnings show on every rank) a
// --batch-size larger than the training split.
void log_data(const TrainConfig& c, const TrainValSplit& splits, int64_t test_images,
              bool main_rank);

// 4-D parameters in channels-last layout.
void to_channels_last(torch::nn::Module& model);

// The settings as they will be saved: the model the run really trains, and
// absolute paths, so that config.toml resumes the run from any folder.
TrainConfig resolved_settings(const TrainConfig& c, const std::string& model, ResNetStem stem,
                              const std::filesystem::path& run_dir,
                              const std::filesystem::path& checkpoint);

// The files a run reads that no output may replace: the data files and
// --init-weights. Not --resume or --config: a resumed run goes on writing
// the checkpoint and config.toml it was started from.
std::vector<NamedFile> run_input_files(const TrainConfig& c);

// The fixed part of every checkpoint header of this run.
CheckpointInfo checkpoint_info(const TrainConfig& resolved, const Normalization& norm,
                               const std::vector<std::string>& class_names,
                               const std::string& config_toml);

// `test` is null on an epoch without evaluation (--eval-every), `val`
// without a validation split.
EpochMetrics metrics_of(int64_t epoch, const EpochStats& stats, const EvalResult* test,
                        const EvalResult* val, double eval_seconds);

}  // namespace cifar
