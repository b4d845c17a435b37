// eval_data.cpp: the data cifar-eval evaluates on (see eval_data.h).
#include "cifar/infer/eval_data.h"

#include <fmt/format.h>
#include <spdlog/spdlog.h>

#include <filesystem>
#include <stdexcept>

#include "cifar/data/dataset.h"
#include "cifar/data/image_folder.h"

namespace cifar {
namespace {
// The split of the data set --data holds that --split names: of an image
// folder without test/, val/ serves as the test split (said once).
Split split_to_read(const EvalConfig& config, const DatasetOptions& options, DatasetKind kind) {
  if (!dataset_entry(kind).image_files || config.split != Split::kTest) return config.split;
  const Split split = test_split_of(options.dir);
  if (split == Split::kVal) {
    spdlog::info("{} has no test/ folder: its {}/ serves as the test split", config.data_dir,
                 split_folder(options.dir, Split::kVal).filename().string());
  }
  return split;
}

// Whether --data is a plain folder of class folders (image_folder.h's
// is_class_folder) to be read as one: --dataset folder or auto, and (auto)
// no file of a binary data set beside its folders.
bool plain_class_folder(const DatasetOptions& options) {
  if (options.kind && !dataset_entry(*options.kind).image_files) return false;
  if (!is_class_folder(options.dir)) return false;
  if (options.kind) return true;
  std::error_code ec;
  for (const auto& file : dataset_files(options.dir)) {
    if (std::filesystem::exists(file, ec)) return false;
  }
  return true;
}

// --data as a plain folder of class folders (DIR/<class>/...), labelled by
// the model's classes: any of them, no other.
ImageSplit read_class_data(const EvalConfig& config, const DatasetOptions& options,
                           const LoadedCheckpoint& checkpoint, const std::string& model_file) {
  if (config.split != Split::kTest) {  // resolve/inference.h refuses it
    throw std::invalid_argument(fmt::format("--split {} for a folder of class folders {}",
                                            split_folder_name(config.split), config.data_dir));
  }
  if (!checkpoint.class_names_known) {
    throw std::runtime_error(fmt::format(
        "{} names no classes, so the class folders of {} cannot be matched to its outputs: "
        "evaluate it on a data set (train/ and test/ or val/), whose classes it takes",
        model_file, config.data_dir));
  }
  spdlog::info("{}: a folder of class folders, labelled by the model's {} classes", config.data_dir,
               checkpoint.info.class_names.size());
  ImageFolderOptions folder = options.folder;
  folder.image = options.image;
  return read_class_folder(options.dir, checkpoint.info.class_names, model_file, folder);
}

}  // namespace

bool evaluated_whole(const EvalConfig& config) {
  DatasetOptions options;
  options.dir = config.data_dir;
  options.kind = dataset_request(config.dataset);
  return plain_class_folder(options);
}

// The split of the data --data holds that --split names (or, for a plain
// folder of class folders, all of it), and the model's classes checked
// against it: the same names in the same order (a weights file that names
// none takes the data's, when it has as many outputs).
ImageSplit read_test_data(const EvalConfig& config, LabelSet labels, LoadedCheckpoint& checkpoint) {
  DatasetOptions options;
  options.dir = config.data_dir;
  options.kind = dataset_request(config.dataset);
  options.labels = labels;  // resolve_eval's: --labels, else the model's
  auto& info = checkpoint.info;
  options.folder.skip_bad_images = config.skip_bad_images;
  // The images the model was trained on, prepared as they were.
  options.image = ImageSpec{.image_size = info.image.image_size, .prep = info.prep};
  const std::string model_file = config.checkpoint.empty() ? "weights file " + config.weights
                                                           : "checkpoint " + config.checkpoint;
  if (plain_class_folder(options)) {
    return read_class_data(config, options, checkpoint, model_file);
  }
  const DatasetKind kind = dataset_kind(options);
  DatasetOptions given = options;
  given.labels = config.labels.value_or(LabelSet::kFine);  // as given: the model's are no option
  for (const auto& note : ignored_data_options(given, kind)) spdlog::warn("{}", note);
  ImageSplit test = read_dataset_split(options, kind, split_to_read(config, options, kind));
  if (!checkpoint.class_names_known && info.class_names.size() == test.class_names.size()) {
    info.class_names = test.class_names;
  }
  check_same_classes(info.class_names, model_file, test.class_names,
                     fmt::format("{} ({})", config.data_dir, to_string(kind)));
  return test;
}

}  // namespace cifar
