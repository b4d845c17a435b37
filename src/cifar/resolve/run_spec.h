// run_spec.h: a training run, resolved once, before any training.
//
// check_run_settings refuses what needs no file, before the device and the
// processes (train() calls it first). resolve_run then builds the RunSpec
// from the options (TrainConfig, config/), the checkpoint or weights file
// they name and the registries' entries, in this order: where the model
// comes from (model_source.h), the precision (platform/precision.h), the
// outputs (run folder, checkpoint path, checked against every input), the
// data (read once, moved to the device once), the model fitted to the data,
// the resolved settings saved as config.toml, the recipe, the processes'
// agreement, and the epochs' shape. Every refusal of the user's settings is a
// UsageError from here (or from config/, for a value alone); the job's parts
// (train/) then take their piece of the spec: the session its SessionSpec and
// the model source, the step its StepSpec, the loop its LoopSpec, the
// splits, the paths and the shape. No part reads a TrainConfig: the spec holds none (the
// record of the settings, RunRecord, is written, not read). The run folder
// itself is opened later, by rank 0 only (report/run_outputs.h).
//
//   option (TrainConfig) -> resolved here -> its one consumer
//   --image-size -> ImageSpec::image_size (run_data.h image_spec) -> the kind's reader (data/)
//   --lr         -> ScheduleOptions::lr of each parameter group (recipe.h) -> optim/lr_schedule
#pragma once

#include <filesystem>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "cifar/config/config.h"
#include "cifar/config/run_record.h"
#include "cifar/core/file_identity.h"
#include "cifar/data/loader.h"
#include "cifar/data/shard.h"
#include "cifar/dist/distributed.h"
#include "cifar/io/resumed_run_dir.h"
#include "cifar/io/run_dir.h"
#include "cifar/platform/machine.h"
#include "cifar/resolve/loop_spec.h"
#include "cifar/resolve/model_source.h"
#include "cifar/resolve/recipe.h"
#include "cifar/resolve/run_data.h"
#include "cifar/resolve/session_spec.h"
#include "cifar/resolve/step_spec.h"

namespace cifar {

// The data on the training device.
struct RunSplits {
  DeviceDataset train;
  DeviceDataset test;
  std::optional<DeviceDataset> val = {};  // --val-split N > 0, or an image folder's val/
  std::string test_is_val = {};           // val/'s path when it serves as the test split too
  std::vector<std::string> class_names = {};
};

// What the run writes, named as the user gave them (config.toml holds
// absolute paths), and the settings as saved.
struct RunPaths {
  std::filesystem::path run_dir;
  std::filesystem::path checkpoint;
  RunRecord record;  // config.toml's text, the HPARAMS (config/run_record.h)
  std::shared_ptr<const RunDirClaim> claim = {};  // RunFiles::claim: held for the run
};

struct RunSpec {
  ModelSource source;
  SessionSpec session;  // what the session is made with (session_spec.h)
  Precision precision;  // --amp resolved for the device and the model (platform/precision.h)
  Recipe recipe;        // made at the resolved batch size and precision
  StepSpec step;        // the precision and the recipe's loss
  LoopSpec loop;        // the epochs: how many, evaluated how, reported how
  EpochShape shape;     // how every epoch of this process is cut into steps
  RunSplits data;
  std::string dataset;  // DatasetInfo::id(), for checkpoints
  RunPaths paths;
  std::string train_fingerprint;          // train_data_fingerprint(the training split)
  std::vector<NamedFile> inputs;          // run_input_files: what no output may replace
  std::optional<ResumedRun> resumed_run;  // the run --resume continues, for the run folder
  SlowRunHint slow_hint;                  // what the forecast adds to a long run (run_data.h)
};

// Where the run is resolved: the device chosen, what it runs natively (which
// --amp auto follows), the processes joined.
struct RunContext {
  const Machine& machine;  // resolve_machine's (machine.h)
  Distributed& dist;
  bool progress_bar = false;  // the data load's bar draws on stderr (RunEnv::progress_bar)
  std::vector<std::filesystem::path> pretrained_dirs = {};  // where --pretrained looks
  std::filesystem::path spare_cache_dir = {};               // ImageFolderOptions::spare_cache_dir
  std::filesystem::path configs_dir = "configs";  // the tools' own configs, named in hints
};

// Refuses the settings that no file is needed to refuse: each value's range
// (config/: validate), what the recipe cannot follow (recipe.h), --cuda-graph
// with several processes, a --batch-size the processes do not divide. Before
// anything starts (the device, the processes' group).
void check_run_settings(const TrainConfig& config, const DistEnv& dist);

// The run `config` asks for, resolved (see above). Collective: with several
// processes every rank calls it, in the same order.
RunSpec resolve_run(const TrainConfig& config, const RunContext& context);

}  // namespace cifar
