// splits.cpp: the splits a run reads (splits.h).
#include "cifar/data/splits.h"

namespace cifar {
namespace {
// The first `limit` images of `data` (all of them when limit is 0 or larger).
void keep_first(Cifar10Dataset& data, int64_t limit) {
  if (limit <= 0 || limit >= data.size()) return;
  data.images = data.images.narrow(0, 0, limit);
  data.labels = data.labels.narrow(0, 0, limit);
}
}  // namespace

TrainValSplit read_train_split(const SplitOptions& options) {
  TrainValSplit split = split_validation(read_cifar10(options.data_dir, Split::kTrain),
                                         options.val_split, options.seed);
  keep_first(split.train, options.train_limit);
  return split;
}

Cifar10Dataset read_test_split(const SplitOptions& options) {
  Cifar10Dataset test = read_cifar10(options.data_dir, Split::kTest);
  keep_first(test, options.test_limit);
  return test;
}

}  // namespace cifar
