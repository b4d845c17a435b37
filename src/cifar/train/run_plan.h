// run_plan.h: what a training run works on and what it writes, before any training.
//
// make_plan resolves, in this order, everything that can fail before the
// first step: where the model comes from (model_source.h), the data (read
// once, moved to the device once), and the outputs (run folder, checkpoint
// path, the resolved settings saved as config.toml). The run folder itself
// is opened later, by rank 0 only (RunOutputs).
#pragma once

#include <filesystem>
#include <optional>
#include <string>
#include <vector>

#include "cifar/config/config.h"
#include "cifar/core/file_identity.h"
#include "cifar/data/loader.h"
#include "cifar/dist/distributed.h"
#include "cifar/platform/precision.h"
#include "cifar/train/model_source.h"
#include "cifar/train/recipe.h"

namespace cifar {

struct RunPlan {
  ModelSource source;
  Precision precision;  // --amp resolved for the device and the model (platform/precision.h)
  // Data on the training device.
  DeviceDataset train;
  DeviceDataset test;
  std::optional<DeviceDataset> val;  // --val-split N > 0, or an image folder's val/
  std::string test_is_val;           // val/'s path when it serves as the test split too
  int64_t batch_size = 0;            // --batch-size, lowered to the training split's size
  std::vector<std::string> class_names;
  std::string dataset;  // DatasetInfo::id(), for checkpoints
  // Outputs, named as the user gave them (config.toml holds absolute paths).
  std::filesystem::path run_dir;
  std::filesystem::path checkpoint;
  TrainConfig resolved;  // the settings as saved
  std::string config_toml;
  std::string train_fingerprint;  // train_data_fingerprint(the training split)
};

// What a checkpoint records of the training split its steps count in
// (CheckpointInfo::train_fingerprint): the SHA-256, in hex, of the images'
// bytes and then the labels', in training order.
std::string train_data_fingerprint(const ImageSplit& train);

// The files a run reads that no output may replace: the data files and
// --init-weights. Not --resume or --config: a resumed run goes on writing
// the checkpoint and config.toml it was started from.
std::vector<NamedFile> run_input_files(const TrainConfig& c);

// `progress_bar`: the data load's bar draws on stderr (RunEnv::progress_bar);
// `numerics`: what the device runs natively, which --amp auto follows.
RunPlan make_plan(const TrainConfig& config, const Recipe& recipe, const torch::Device& device,
                  const DeviceNumerics& numerics, const Distributed& dist, bool progress_bar);

}  // namespace cifar
