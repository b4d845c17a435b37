// splits.cpp: the splits a run reads (splits.h).
#include "cifar/data/splits.h"

#include <fmt/format.h>
#include <spdlog/spdlog.h>

#include <memory>
#include <stdexcept>

#include "cifar/data/crops.h"
#include "cifar/data/image_folder.h"

namespace cifar {
namespace {
// Of an image folder, which lists its images class by class, `limit`
// positions of `size` evenly spaced through that list, so that every class
// keeps its share: (limit) int64, floor(i * size / limit), strictly increasing.
torch::Tensor evenly_spaced(int64_t size, int64_t limit) {
  return torch::div(torch::arange(limit, torch::kInt64) * size, limit, "floor");
}

// `limit` images of `data` (all of them when limit is 0 or larger): the
// first ones of a CIFAR file, whose images come in no order; of an image
// folder, `limit` evenly spaced ones.
void keep(ImageSplit& data, int64_t limit, DatasetKind kind) {
  if (limit <= 0 || limit >= data.size()) return;
  if (!dataset_entry(kind).image_files) {
    data.images = data.images.narrow(0, 0, limit);
    data.labels = data.labels.narrow(0, 0, limit);
    return;
  }
  data = take(data, evenly_spaced(data.size(), limit));
}

TrainValSplit cut_train(const ImageSplit& whole, const SplitOptions& options, DatasetKind kind) {
  TrainValSplit split = split_validation(whole, options.val_split, options.seed);
  keep(split.train, options.train_limit, kind);
  split.val = evaluation_view(split.val);
  return split;
}

ImageSplit cut_test(ImageSplit test, const SplitOptions& options, DatasetKind kind) {
  keep(test, options.test_limit, kind);
  return test;
}

// A data set's split read as keep() then cuts it: only its first images
// prepared (a data set's normalisation is its own, not measured), unless
// some are held out of the whole training split first.
DatasetOptions first_images(const SplitOptions& options, Split split) {
  DatasetOptions data = options.dataset();
  if (split == Split::kTest) data.first = options.test_limit;
  if (split == Split::kTrain && options.val_split == 0) data.first = options.train_limit;
  return data;
}
}  // namespace

DatasetOptions SplitOptions::dataset() const {
  DatasetOptions options{
      .dir = data_dir, .kind = kind, .labels = labels, .folder = folder, .image = image};
  options.folder.missing_test_is_empty = val_split > 0;
  options.folder.holdout_option = "--val-split";  // a run's way round a missing test/
  return options;
}

namespace {
// An image folder's val/ or test/, cut to --test-limit: only those images
// decoded (unless --skip-bad-images, which must see them all).
ImageSplit read_folder_eval_split(const SplitOptions& options, DatasetKind kind, Split split) {
  DatasetOptions data = options.dataset();
  const int64_t limit = options.test_limit;
  if (limit > 0 && !data.folder.skip_bad_images) {
    data.folder.pick = [limit](int64_t listed) {
      return limit < listed ? evenly_spaced(listed, limit) : torch::Tensor();
    };
  }
  return cut_test(read_dataset_split(data, kind, split), options, kind);
}

// Whether an image folder's training split is read in part: with
// --train-limit, unless --skip-bad-images must see every file.
bool lazy_train(const SplitOptions& options) {
  return options.train_limit > 0 && !options.folder.skip_bad_images;
}

// An image folder's training split, held out and cut as cut_train does,
// decoding only the images the run uses (the held-out ones and the cut).
TrainValSplit read_folder_train_picked(const SplitOptions& options, DatasetKind kind) {
  DatasetOptions data = options.dataset();
  // Which of the listed images are used: known once the folder is listed.
  struct Picked {
    TrainValIndex index;  // into the whole split; index.train cut to the limit
    torch::Tensor read;   // both, sorted: the images read
  };
  auto picked = std::make_shared<Picked>();
  data.folder.pick = [picked, &options](int64_t listed) {
    picked->index = validation_indices(listed, options.val_split, options.seed);
    const int64_t rest = picked->index.train.size(0);
    if (options.train_limit < rest) {
      picked->index.train =
          picked->index.train.index_select(0, evenly_spaced(rest, options.train_limit));
    }
    picked->read = std::get<0>(torch::cat({picked->index.train, picked->index.val}).sort());
    return picked->read.size(0) < listed ? picked->read : torch::Tensor();
  };
  const ImageSplit read = read_dataset_split(data, kind, Split::kTrain);
  TORCH_CHECK(picked->read.size(0) == read.size(), "read ", read.size(), " images of ",
              picked->read.size(0));
  // Positions in what was read (the whole split when the pick was all of it).
  return {take(read, torch::searchsorted(picked->read, picked->index.train)),
          evaluation_view(take(read, torch::searchsorted(picked->read, picked->index.val)))};
}

}  // namespace

TrainValSplit read_train_split(const SplitOptions& options) {
  const DatasetOptions data = options.dataset();
  const DatasetKind kind = dataset_kind(data);
  if (dataset_entry(kind).image_files && lazy_train(options)) {
    return read_folder_train_picked(options, kind);
  }
  return cut_train(read_dataset_split(first_images(options, Split::kTrain), kind, Split::kTrain),
                   options, kind);
}

HeldOutSplit read_held_out_split(const SplitOptions& options) {
  DatasetOptions data = options.dataset();
  const DatasetKind kind = dataset_kind(data);
  if (!dataset_entry(kind).image_files || options.folder.skip_bad_images) {
    const ImageSplit whole = read_dataset_split(data, kind, Split::kTrain);
    return {evaluation_view(split_validation(whole, options.val_split, options.seed).val),
            whole.size()};
  }
  auto listed = std::make_shared<int64_t>(0);
  data.folder.pick = [listed, &options](int64_t count) {
    *listed = count;
    return validation_indices(count, options.val_split, options.seed).val;  // sorted
  };
  return {evaluation_view(read_dataset_split(data, kind, Split::kTrain)), *listed};
}

ImageSplit read_test_split(const SplitOptions& options) {
  const DatasetOptions data = options.dataset();
  const DatasetKind kind = dataset_kind(data);
  if (dataset_entry(kind).image_files) return read_folder_eval_split(options, kind, Split::kTest);
  return cut_test(read_dataset_split(first_images(options, Split::kTest), kind, Split::kTest),
                  options, kind);
}

std::string val_split_beside_val_folder(const SplitOptions& options) {
  const std::filesystem::path& dir = options.data_dir;
  if (options.val_split == 0 || !has_split_folder(dir, Split::kVal)) return "";
  if (!dataset_entry(dataset_kind(options.dataset())).image_files) return "";
  const std::string val = split_folder(dir, Split::kVal).filename().string();
  return fmt::format(
      "--val-split {} holds out training images for validation, but {} has a {}/ folder, "
      "which is its validation split: drop --val-split, or move {}/ away",
      options.val_split, dir.string(), val, val);
}

namespace {
// The splits of an image folder: train/ (held out and cut), val/ or the
// held-out images, test/ or (without it) val/ again.
RunData read_folder_run_data(const SplitOptions& options, DatasetKind kind) {
  const std::filesystem::path& dir = options.data_dir;
  check_split_classes(dir);  // before anything is decoded or written
  RunData run;
  run.val_folder = has_split_folder(dir, Split::kVal);
  if (run.val_folder && options.val_split > 0) {  // resolve/run_spec.cpp refuses it
    throw std::invalid_argument(val_split_beside_val_folder(options));
  }
  run.test_is_val = run.val_folder && !has_split_folder(dir, Split::kTest);
  if (!run.val_folder && !has_split_folder(dir, Split::kTest) && options.val_split == 0) {
    list_image_folder(dir, Split::kTest, options.dataset().folder);  // refuses, saying so
  }
  if (lazy_train(options)) {
    // Described (normalisation) from the training images the run uses.
    run.splits = read_folder_train_picked(options, kind);
    run.dataset = describe_dataset(kind, options.labels, run.splits.train, options.image.prep);
  } else {  // described from the whole training split, as CIFAR's
    const ImageSplit train = read_dataset_split(options.dataset(), kind, Split::kTrain);
    run.dataset = describe_dataset(kind, options.labels, train, options.image.prep);
    run.splits = cut_train(train, options, kind);
  }
  if (run.val_folder) run.splits.val = read_folder_eval_split(options, kind, Split::kVal);
  run.test = run.test_is_val ? run.splits.val : read_folder_eval_split(options, kind, Split::kTest);
  return run;
}
}  // namespace

RunData read_run_data(const SplitOptions& options) {
  const DatasetOptions data = options.dataset();
  const DatasetKind kind = dataset_kind(data);
  if (dataset_entry(kind).image_files) return read_folder_run_data(options, kind);
  const ImageSplit train =
      read_dataset_split(first_images(options, Split::kTrain), kind, Split::kTrain);
  RunData run{
      .dataset = describe_dataset(kind, options.labels, train, options.image.prep),
      .splits = cut_train(train, options, kind),
      .test = cut_test(read_dataset_split(first_images(options, Split::kTest), kind, Split::kTest),
                       options, kind),
      .val_folder = false,
      .test_is_val = false};
  return run;
}

}  // namespace cifar
