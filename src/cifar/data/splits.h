// splits.h: the training, validation and test splits a run reads, cut as
// its options say.
//
// --val-split N images are held out of the training split for validation
// (chosen by the seed from the whole split, so the same for any
// --train-limit), the rest is cut to its first --train-limit images, and the
// test split to its first --test-limit.
#pragma once

#include <cstdint>
#include <filesystem>

#include "cifar/data/data.h"

namespace cifar {

struct SplitOptions {
  std::filesystem::path data_dir;
  int64_t train_limit = 0;  // the first N training images (0: all)
  int64_t test_limit = 0;   // the first N test images (0: all)
  int64_t val_split = 0;    // N training images held out for validation
  uint64_t seed = 0;        // which images are held out
};

TrainValSplit read_train_split(const SplitOptions& options);
Cifar10Dataset read_test_split(const SplitOptions& options);

}  // namespace cifar
