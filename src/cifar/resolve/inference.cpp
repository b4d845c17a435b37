// inference.cpp: see inference.h.
#include "cifar/resolve/inference.h"

#include <fmt/format.h>
#include <spdlog/spdlog.h>

#include <filesystem>
#include <optional>
#include <string>
#include <vector>

#include "cifar/config/config.h"
#include "cifar/config/settings_check.h"
#include "cifar/core/errors.h"
#include "cifar/core/file_identity.h"
#include "cifar/core/file_io.h"
#include "cifar/data/image_cache.h"
#include "cifar/data/image_folder.h"
#include "cifar/infer/eval_data.h"
#include "cifar/infer/image_list.h"
#include "cifar/infer/predict.h"
#include "cifar/io/checkpoint.h"
#include "cifar/io/run_dir.h"  // non_file_kind
#include "cifar/io/weights_export.h"
#include "cifar/io/weights_file.h"
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

// The TTA level to predict with: config.tta, else the checkpoint's (0 for a
// weights file), level 3 as 2 (predict.h); logs it and where it came from.
int64_t predict_tta(const PredictConfig& config, const LoadedCheckpoint& model) {
  const bool given = config.tta != -1;
  const int64_t level = given ? config.tta : model.info.tta;
  std::string source = "the checkpoint's; --tta to choose another";
  if (given) source = "--tta";
  if (!given && !model.tta_known) source = "weights files carry none";
  if (level == kSelectiveTta) {
    spdlog::info(
        "test-time augmentation: level 2 for every image ({} says level 3, which applies level 2 "
        "to the least sure quarter of a batch: an image's answer would depend on the others)",
        given ? "--tta" : "the checkpoint");
    return 2;
  }
  spdlog::info("test-time augmentation: level {} ({})", level, source);
  return level;
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

// What stops --csv from replacing the file at `path` ("" when nothing does):
// it replaces only a CSV that cifar-predict wrote (its header row) or an
// empty file, never a device, FIFO or folder, or another program's file
// (a run folder's metrics.csv and checkpoints among them).
std::string csv_replace_problem(const fs::path& path) {
  std::error_code ec;
  if (!fs::exists(fs::symlink_status(path, ec))) return "";
  const std::string hint =
      "cifar-predict replaces only CSV files it wrote: choose another --csv, or move the file "
      "away yourself";
  if (const std::string kind = non_file_kind(path); !kind.empty()) {
    return fmt::format(
        "--csv {} is {}, not a CSV file; {}{}", path.string(), kind, hint,
        kind == "a character device" ? " (--csv - prints on the standard output)" : "");
  }
  const std::string header = "path,class_1,probability_1,";
  if (const std::string front = read_front(path, header.size(), "--csv");
      !front.empty() && front != header) {
    return fmt::format("--csv {} holds something cifar-predict did not write; {}", path.string(),
                       hint);
  }
  return "";
}

// Before anything is written: --csv is none of the inputs (the model file,
// the images), and can be written.
void check_predict_outputs(const PredictConfig& config, const std::vector<std::string>& images) {
  if (config.csv == "-" && config.json) {  // both would be the standard output
    throw UsageError(
        "--csv - (the standard output) and --json both print there: give --csv a FILE, or drop "
        "one");
  }
  if (config.csv.empty() || config.csv == "-") return;
  std::vector<NamedFile> inputs{{"--checkpoint", config.checkpoint, ""},
                                {"--weights", config.weights, ""}};
  for (const auto& image : images) inputs.push_back({"the image", image, ""});
  check_distinct_files(inputs, {{"--csv", config.csv, ""}});
  if (fs::is_directory(config.csv)) {  // ensure_writable's refusal, which names a file inside
    ensure_writable(config.csv, "--csv", /*make_folder=*/false);
  }
  if (const std::string problem = csv_replace_problem(config.csv); !problem.empty()) {
    throw UsageError(problem);
  }
  ensure_writable(config.csv, "--csv", /*make_folder=*/false);  // its folder must exist
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

PredictRun resolve_predict(const PredictConfig& config) {
  check_model_input(config);
  validate(config);  // config/: the ranges (--top-k, --tta, --batch-size)
  PredictRun run{.images = list_images(config.images),  // folders walked
                 .checkpoint = {},
                 .options = {}};
  run.options.top_k = config.top_k;
  run.options.batch_size = config.batch_size;
  run.options.logits = config.logits && config.json;
  if (config.logits && !config.json) {  // said, as resolve/ignored_options says the others
    spdlog::warn(
        "--logits does nothing here: the raw logits go only into --json's output{}; "
        "add --json",
        config.csv.empty() ? "" : " (--csv has no logits columns)");
  }
  for (const auto& input : config.images) {  // a data set's val/ or test/: its decode cache
    std::error_code ec;
    if (std::filesystem::is_directory(input, ec) && class_folder_cache(input, {})) {
      run.options.cached_folders.push_back(input);
    }
  }
  check_predict_outputs(config, run.images.files);
  if (const std::string skipped = describe_skipped(run.images); !skipped.empty()) {
    spdlog::info("{}", skipped);
  }
  run.checkpoint = load_model_input(config);  // on the CPU
  run.options.tta = predict_tta(config, run.checkpoint);
  if (const int64_t classes = run.checkpoint.info.num_classes; config.top_k > classes) {
    spdlog::warn("--top-k {}: the model knows only {} classes, so each image lists all {}",
                 config.top_k, classes, classes);
    run.options.top_k = classes;
  }
  const auto batch = std::min(static_cast<int64_t>(run.images.files.size()), config.batch_size);
  const Machine machine = resolve_machine({.device = config.device,
                                           .threads = config.threads,
                                           .env = config.machine,
                                           .batch_size = std::max<int64_t>(batch, 1),
                                           .quiet = true});  // its output is its answers
  run.options.device = machine.device;
  run.options.threads = machine.cpu.threads;
  run.checkpoint.model->to(run.options.device);
  run.checkpoint.model->eval();
  return run;
}

LoadedCheckpoint resolve_export(const ExportConfig& config) {
  check_model_input(config);
  validate(config);  // config/: --out is none of the inputs
  // Before the model is read: --out replaces only an export of its own (a
  // folder is named as one first), has a weights file's extension, and its
  // folder is not made for it.
  if (const std::string problem = export_replace_problem(config.out); !problem.empty()) {
    throw UsageError(problem);
  }
  if (const std::string problem = weights_format_problem(config.out); !problem.empty()) {
    throw UsageError(problem);
  }
  ensure_writable(config.out, "--out", /*make_folder=*/false);
  return load_model_input(config);
}

}  // namespace cifar
