// predict_export.cpp: cifar-predict's and cifar-export's runs resolved
// (inference.h): the TTA level, --top-k against the model's classes, --csv
// and --out checked before anything is read or written.
#include <fmt/format.h>
#include <spdlog/spdlog.h>

#include <algorithm>
#include <filesystem>
#include <string>
#include <vector>

#include "cifar/config/config.h"
#include "cifar/config/settings_check.h"
#include "cifar/core/errors.h"
#include "cifar/core/file_identity.h"
#include "cifar/core/file_io.h"
#include "cifar/data/image_cache.h"
#include "cifar/infer/image_list.h"
#include "cifar/infer/predict.h"
#include "cifar/io/checkpoint_owner.h"  // non_file_kind
#include "cifar/io/weights_export.h"
#include "cifar/io/weights_file.h"
#include "cifar/resolve/inference.h"
#include "cifar/resolve/machine.h"
#include "cifar/resolve/model_input.h"

namespace cifar {
namespace fs = std::filesystem;
namespace {

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

}  // namespace

PredictRun resolve_predict(const PredictConfig& config) {
  check_model_input(config);
  validate(config);  // config/: the ranges (--top-k, --tta, --batch-size)
  PredictRun run{.images = list_images(config.images),  // folders walked
                 .checkpoint = {},
                 .options = {}};
  run.options.top_k = config.top_k;
  run.options.batch_size = config.batch_size;
  run.options.logits = config.logits && config.json;
  run.options.spare_cache_dir = config.spare_cache_dir;
  if (config.logits && !config.json) {  // said, as resolve/ignored_options says the others
    spdlog::warn(
        "--logits does nothing here: the raw logits go only into --json's output{}; "
        "add --json",
        config.csv.empty() ? "" : " (--csv has no logits columns)");
  }
  for (const auto& input : config.images) {  // a data set's val/ or test/: its decode cache
    std::error_code ec;
    if (std::filesystem::is_directory(input, ec) &&
        class_folder_cache(input, ImageFolderOptions{})) {
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
  // Before the model is read: --out has a weights file's extension (a
  // folder is named as one first), replaces only an export of its own, and
  // its folder is not made for it.
  const std::string format = weights_format_problem(config.out, WeightsUse::kWrite);
  std::error_code ec;
  if (!format.empty() && !std::filesystem::is_directory(config.out, ec)) throw UsageError(format);
  if (const std::string problem = export_replace_problem(config.out); !problem.empty()) {
    throw UsageError(problem);
  }
  if (!format.empty()) throw UsageError(format);
  ensure_writable(config.out, "--out", /*make_folder=*/false);
  return load_model_input(config);
}

}  // namespace cifar
