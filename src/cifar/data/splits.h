// splits.h: the training, validation and test splits a run reads, cut as
// its options say.
//
// The data set is the kind --dataset names, or the one the folder holds
// (dataset.h). The validation split is an image folder's val/, or N images
// held out of the training split by --val-split (chosen by the seed from the
// whole split, and, of whole images kept for random resized crops, seen as
// the evaluation sees them: crops.h's evaluation_view;
// the same for any --train-limit; not both); the rest of the
// training split is cut to --train-limit images, the test split (and val/)
// to --test-limit (SplitOptions says which ones). An image folder with val/
// and no test/ has val/ serve as the test split too. Of an image folder, only
// the images a run uses are decoded (without --skip-bad-images).
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
  std::optional<DatasetKind> kind{};  // --dataset; unset: detected
  LabelSet labels = LabelSet::kFine;  // --labels (CIFAR-100)
  ImageSpec image{};                  // the model's images, as resolve/ decided them
  // Image folders: the cache, --skip-bad-images, the decoding progress (a
  // missing test/ is an empty test split when --val-split holds images out).
  ImageFolderOptions folder{};

  DatasetOptions dataset() const;
};

TrainValSplit read_train_split(const SplitOptions& options);
ImageSplit read_test_split(const SplitOptions& options);

// The options.val_split images a run held out of the training split (its
// --val-split and --seed), chosen again as read_train_split chose them and
// seen as its validation split was (evaluation_view); of an image folder,
// only those decoded (without --skip-bad-images). `listed`: the images of
// the training split they were chosen from, which the caller checks
// against the run's. HoldoutTooLarge when the split has too few.
struct HeldOutSplit {
  ImageSplit val;
  int64_t listed = 0;
};
HeldOutSplit read_held_out_split(const SplitOptions& options);

// Everything a run reads: the data set (described from its whole training
// split: classes, normalisation) and the three splits, cut as above.
struct RunData {
  DatasetInfo dataset;
  TrainValSplit splits;
  ImageSplit test;
  bool val_folder = false;   // splits.val is an image folder's val/
  bool test_is_val = false;  // no test/: `test` holds val/'s images
};
// Precondition: val_split_beside_val_folder(options) is "" (else
// std::invalid_argument); a --val-split the training split cannot give is
// HoldoutTooLarge (image_split.h). resolve/ refuses both as the user's.
RunData read_run_data(const SplitOptions& options);

// "--val-split N holds out training images ..., but DIR has a val/ folder":
// an image folder's val/ is its validation split; "" when there is none, or
// no --val-split.
std::string val_split_beside_val_folder(const SplitOptions& options);

}  // namespace cifar
