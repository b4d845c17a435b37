// inference.cpp: cifar-eval's run resolved (inference.h); cifar-predict's
// and cifar-export's are in predict_export.cpp.
#include "cifar/resolve/inference.h"

#include <fmt/format.h>
#include <spdlog/spdlog.h>

#include <filesystem>
#include <optional>
#include <string>
#include <vector>

#include "cifar/config/config.h"
#include "cifar/core/errors.h"
#include "cifar/data/image_folder.h"
#include "cifar/infer/eval_data.h"
#include "cifar/io/checkpoint.h"
#include "cifar/platform/guards.h"
#include "cifar/resolve/machine.h"
#include "cifar/resolve/model_input.h"

namespace cifar {
namespace fs = std::filesystem;
namespace {

// "level 2, the checkpoint's": the level, and where it came from
// (`known`: the model file records one, LoadedCheckpoint::tta_known).
std::string eval_tta_source(int64_t tta, const EvalConfig& config, bool known) {
  if (config.tta != -1) return fmt::format("level {} (--tta)", tta);
  if (!known) return fmt::format("level {} (weights files carry none)", tta);
  return fmt::format("level {}, the checkpoint's (--tta to choose another)", tta);
}

// CIFAR-100's label set to evaluate on: the one the model was trained on
// (its file records it), which --labels may restate but not change (issue
// 54: --labels fine on a coarse model was ignored without a word); --labels
// for a model whose file records none.
LabelSet eval_labels(const EvalConfig& config, const CheckpointInfo& info) {
  const std::optional<LabelSet> trained = label_set_of_id(info.dataset);
  if (!trained) return config.labels.value_or(LabelSet::kFine);
  if (config.labels && *config.labels != *trained) {
    throw UsageError(fmt::format(
        "--labels {}: {} was trained on CIFAR-100's {} labels ({} classes) and is evaluated on "
        "them: drop --labels",
        to_string(*config.labels), config.checkpoint.empty() ? config.weights : config.checkpoint,
        to_string(*trained), info.num_classes));
  }
  return *trained;
}

// cifar-eval's --data names no folder, where its default is CIFAR-10's: a
// model trained on an image folder that is still there is to be evaluated
// on that, and the error says so (naming it), rather than pointing to
// CIFAR-10 alone. Otherwise reading the data says what is wrong.
void check_data_named(const EvalConfig& config) {
  std::error_code ec;
  if (config.checkpoint.empty() || fs::exists(config.data_dir, ec)) return;
  std::string trained_on;
  try {
    const std::optional<CheckpointInfo> info = peek_checkpoint_info(config.checkpoint);
    if (!info || info->config_toml.empty()) return;
    trained_on = from_toml(info->config_toml).data_dir;
  } catch (const std::exception&) {  // not a checkpoint, or old settings: said later
    return;
  }
  if (!has_image_folder_layout(trained_on)) return;
  throw std::runtime_error(fmt::format(
      "data folder {} does not exist: {} was trained on the image folder {}, so evaluate it "
      "there with --data {}, or give --data any folder of its classes' folders",
      config.data_dir, config.checkpoint, trained_on, trained_on));
}

// --split val of a data set without a validation split of its own (CIFAR's
// files, an image folder without val/): the images the model's run held out
// of the training split (--val-split), as its checkpoint's settings say;
// none when the data has a val/ folder. CIFAR's files and a run that held
// none out are refused (an image folder's missing val/ is named as it is read).
std::optional<HeldOutImages> held_out_images(const EvalConfig& config, const EvalData& data,
                                             const CheckpointInfo& info) {
  if (config.split != Split::kVal || data.whole) return std::nullopt;
  const DatasetKindEntry& entry = dataset_entry(*data.kind);
  if (entry.image_files && has_split_folder(data.dir, Split::kVal)) return std::nullopt;
  const TrainConfig run = info.config_toml.empty() ? TrainConfig{} : from_toml(info.config_toml);
  if (run.val_split == 0) {
    if (entry.image_files) return std::nullopt;
    throw UsageError(fmt::format("{}, and {}", no_val_split(data.dir, entry),
                                 info.config_toml.empty()
                                     ? data.model_file + " records no run settings"
                                     : "the run of " + data.model_file + " held none out"));
  }
  return HeldOutImages{.images = run.val_split,
                       .seed = run.seed,
                       .train_images = info.train_images,
                       .train_limited = run.train_limit > 0,
                       .skip_bad_images = run.skip_bad_images};
}

// --split train of a run that held images out of it (--val-split) or cut it
// (--train-limit): the whole split is evaluated, which is not what the run
// trained on; said, so that its accuracy is not read as the training one.
void note_train_split(const EvalConfig& config, const EvalData& data, const CheckpointInfo& info) {
  if (config.split != Split::kTrain || data.whole || info.config_toml.empty()) return;
  const TrainConfig run = from_toml(info.config_toml);
  if (run.val_split == 0 && run.train_limit == 0) return;
  spdlog::warn(
      "--split train evaluates all of {}'s training split, but the run of {} trained on {} of "
      "its images{}{}",
      data.dir.string(), data.model_file,
      info.train_images >= 0 ? std::to_string(info.train_images) : "some",
      run.train_limit > 0 ? fmt::format(" (cifar-train --train-limit {})", run.train_limit) : "",
      run.val_split > 0
          ? fmt::format(" and held {} out for validation (cifar-train --val-split {}): "
                        "--split val evaluates those alone",
                        run.val_split, run.val_split)
          : "");
}

}  // namespace

EvalRun resolve_eval(const EvalConfig& config) {
  check_model_input(config);
  validate(config);  // config/: the ranges; reading the data writes no cache onto the model
  EvalData data{.dir = config.data_dir,
                .kind = dataset_request(config.dataset),
                .split = config.split,
                .whole = false,
                .labels = LabelSet::kFine,
                .given_labels = config.labels,
                .skip_bad_images = config.skip_bad_images,
                .spare_cache_dir = config.spare_cache_dir,
                .model_file = config.checkpoint.empty() ? "weights file " + config.weights
                                                        : "checkpoint " + config.checkpoint};
  check_data_named(config);
  data.whole = evaluated_whole(data.dir, data.kind);  // listed once, read as it says
  if (config.split != Split::kTest && data.whole) {
    throw UsageError(
        fmt::format("--split {} names a split of a data set, but {} is a folder of class folders "
                    "(<class>/*.png|jpg|jpeg), evaluated whole: drop --split",
                    split_folder_name(config.split), config.data_dir));
  }
  if (!data.whole) {  // the kind detected once (--dataset auto), read as it says
    DatasetOptions options;
    options.dir = data.dir;
    options.kind = data.kind;
    data.kind = dataset_kind(options);
  }
  LoadedCheckpoint checkpoint = load_model_input(config);
  data.held_out = held_out_images(config, data, checkpoint.info);
  note_train_split(config, data, checkpoint.info);
  const int64_t tta = config.tta == -1 ? checkpoint.info.tta : config.tta;
  data.labels = eval_labels(config, checkpoint.info);
  const Machine machine = resolve_machine({.device = config.device,
                                           .threads = config.threads,
                                           .env = config.machine,
                                           .batch_size = config.batch_size});
  // --amp: off by default (evaluation runs float32 unless asked).
  Precision precision = resolve_amp(config.amp, machine, checkpoint.info.model, /*graphed=*/false);
  // The data, decoded at the planned thread count, its classes checked
  // against the model's (a weights file without names takes the data's).
  std::optional<CpuSettingsGuard> threads;
  if (machine.device.is_cpu()) threads.emplace(machine.cpu.threads, /*onednn=*/true);
  ImageSplit test = read_test_data(data, checkpoint);
  threads.reset();
  std::string tta_source = eval_tta_source(tta, config, checkpoint.tta_known);
  return {.test = std::move(test),
          .batch_size = config.batch_size,
          .progress_bar = config.progress_bar,
          .checkpoint = std::move(checkpoint),
          .tta = tta,
          .tta_source = std::move(tta_source),
          .machine = machine,
          .precision = std::move(precision)};
}

}  // namespace cifar
