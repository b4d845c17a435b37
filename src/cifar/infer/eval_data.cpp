// eval_data.cpp: the data cifar-eval evaluates on (see eval_data.h).
#include "cifar/infer/eval_data.h"

#include <fmt/format.h>
#include <spdlog/spdlog.h>

#include <filesystem>
#include <stdexcept>

#include "cifar/data/dataset.h"
#include "cifar/data/image_folder.h"
#include "cifar/data/splits.h"

namespace cifar {
namespace {
// The split of the data set --data holds that --split names: of an image
// folder without test/, val/ serves as the test split (said once).
Split split_to_read(const EvalData& data, const DatasetOptions& options, DatasetKind kind) {
  if (!dataset_entry(kind).image_files || data.split != Split::kTest) return data.split;
  const Split split = test_split_of(options.dir);
  if (split == Split::kVal) {
    spdlog::info("{} has no test/ folder: its {}/ serves as the test split", data.dir.string(),
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
ImageSplit read_class_data(const EvalData& data, const DatasetOptions& options,
                           const LoadedCheckpoint& checkpoint) {
  if (data.split != Split::kTest) {  // resolve/inference.h refuses it
    throw std::invalid_argument(fmt::format("--split {} for a folder of class folders {}",
                                            split_folder_name(data.split), data.dir.string()));
  }
  if (!checkpoint.class_names_known) {
    throw std::runtime_error(fmt::format(
        "{} names no classes, so the class folders of {} cannot be matched to its outputs: "
        "evaluate it on a data set (train/ and test/ or val/), whose classes it takes",
        data.model_file, data.dir.string()));
  }
  spdlog::info("{}: a folder of class folders, labelled by the model's {} classes",
               data.dir.string(), checkpoint.info.class_names.size());
  ImageFolderOptions folder = options.folder;
  folder.image = options.image;
  return read_class_folder(options.dir, checkpoint.info.class_names, data.model_file, folder);
}

// The images the run held out of the training split (data.held_out), as it
// chose them: refused when the split no longer lists as many images as the
// run's did. A run that cut its split (--train-limit) recorded only the
// images it kept, so its count is checked as a floor, and the log says so.
ImageSplit read_held_out(const EvalData& data, const DatasetOptions& options, DatasetKind kind) {
  const HeldOutImages& run = *data.held_out;
  SplitOptions split{.data_dir = data.dir,
                     .val_split = run.images,
                     .seed = run.seed,
                     .kind = kind,
                     .labels = options.labels,
                     .image = options.image,
                     .folder = options.folder};
  split.folder.skip_bad_images = run.skip_bad_images || options.folder.skip_bad_images;
  const auto changed = [&](const std::string& now) {
    return std::runtime_error(fmt::format(
        "{}'s training split now holds {} images, but the run of {} held {} out of {}: the images "
        "it held out cannot be chosen again; evaluate the test split (drop --split) or a val/ "
        "folder",
        data.dir.string(), now, data.model_file, run.images,
        run.train_limited ? fmt::format("at least {}", run.train_images + run.images)
                          : std::to_string(run.train_images + run.images)));
  };
  HeldOutSplit read;
  try {
    read = read_held_out_split(split);
  } catch (const HoldoutTooLarge&) {
    throw changed(fmt::format("{} or fewer", run.images));
  }
  const int64_t rest = read.listed - run.images;  // what the run could train on
  if (run.train_images >= 0 &&
      (run.train_limited ? rest < run.train_images : rest != run.train_images)) {
    throw changed(std::to_string(read.listed));
  }
  spdlog::info(
      "validation split: the {} images the run held out of {}'s training split "
      "(--val-split {}, --seed {}), chosen again as it chose them",
      run.images, data.dir.string(), run.images, run.seed);
  if (run.train_limited) {
    spdlog::warn(
        "the run cut its training split (--train-limit), so a split that gained images since "
        "cannot be told from it: the held-out images are chosen from the {} listed now",
        read.listed);
  }
  return std::move(read.val);
}

}  // namespace

bool evaluated_whole(const std::filesystem::path& dir, std::optional<DatasetKind> kind) {
  DatasetOptions options;
  options.dir = dir;
  options.kind = kind;
  return plain_class_folder(options);
}

ImageSplit read_test_data(const EvalData& data, LoadedCheckpoint& checkpoint) {
  DatasetOptions options;
  options.dir = data.dir;
  options.kind = data.kind;
  options.labels = data.labels;  // resolve_eval's: --labels, else the model's
  auto& info = checkpoint.info;
  options.folder.skip_bad_images = data.skip_bad_images;
  options.folder.spare_cache_dir = data.spare_cache_dir;
  // The images the model was trained on, prepared as they were.
  options.image = ImageSpec{.image_size = info.image.image_size, .prep = info.prep};
  if (data.whole) return read_class_data(data, options, checkpoint);
  const DatasetKind kind = dataset_kind(options);
  DatasetOptions given = options;
  given.labels =
      data.given_labels.value_or(LabelSet::kFine);  // as given: the model's are no option
  for (const auto& note : ignored_data_options(given, kind)) spdlog::warn("{}", note);
  ImageSplit test = data.split == Split::kVal && data.held_out
                        ? read_held_out(data, options, kind)
                        : read_dataset_split(options, kind, split_to_read(data, options, kind));
  if (!checkpoint.class_names_known && info.class_names.size() == test.class_names.size()) {
    info.class_names = test.class_names;
  }
  check_same_classes(info.class_names, data.model_file, test.class_names,
                     fmt::format("{} ({})", data.dir.string(), to_string(kind)));
  return test;
}

}  // namespace cifar
