// splits.h: the training, validation and test splits a run reads, cut as
// its options say.
//
// The data set is the kind --dataset names, or the one the folder holds
// (dataset.h). --val-split N images are held out of the training split for
// validation (chosen by the seed from the whole split, so the same for any
// --train-limit), the rest is cut to --train-limit images, and the test
// split to --test-limit (SplitOptions says which ones).
#pragma once

#include <cstdint>
#include <filesystem>
#include <optional>

#include "cifar/data/dataset.h"
#include "cifar/data/image_split.h"

namespace cifar {

struct SplitOptions {
  std::filesystem::path data_dir;
  // N training or test images (0: all): the first N of CIFAR's files; of an
  // image folder, which lists them class by class, N evenly spaced ones.
  int64_t train_limit = 0;
  int64_t test_limit = 0;
  int64_t val_split = 0;              // N training images held out for validation
  uint64_t seed = 0;                  // which images are held out
  std::optional<DatasetKind> kind;    // --dataset; unset: detected
  LabelSet labels = LabelSet::kFine;  // --labels (CIFAR-100)
  int64_t image_size = 0;             // --image-size (0: the data set's own side)
  // Image folders: the cache, --skip-bad-images, the decoding progress (a
  // missing test/ is an empty test split when --val-split holds images out).
  ImageFolderOptions folder;

  DatasetOptions dataset() const;
};

TrainValSplit read_train_split(const SplitOptions& options);
ImageSplit read_test_split(const SplitOptions& options);

// Everything a run reads: the data set (described from its whole training
// split: classes, normalisation) and the three splits, cut as above.
struct RunData {
  DatasetInfo dataset;
  TrainValSplit splits;
  ImageSplit test;
};
RunData read_run_data(const SplitOptions& options);

}  // namespace cifar
