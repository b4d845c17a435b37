// splits.cpp: the splits a run reads (splits.h).
#include "cifar/data/splits.h"

namespace cifar {
namespace {
// The first `limit` images of `data` (all of them when limit is 0 or larger).
void keep_first(ImageSplit& data, int64_t limit) {
  if (limit <= 0 || limit >= data.size()) return;
  data.images = data.images.narrow(0, 0, limit);
  data.labels = data.labels.narrow(0, 0, limit);
}

TrainValSplit cut_train(const ImageSplit& whole, const SplitOptions& options) {
  TrainValSplit split = split_validation(whole, options.val_split, options.seed);
  keep_first(split.train, options.train_limit);
  return split;
}

ImageSplit cut_test(ImageSplit test, const SplitOptions& options) {
  keep_first(test, options.test_limit);
  return test;
}
}  // namespace

DatasetOptions SplitOptions::dataset() const {
  DatasetOptions options{.dir = data_dir, .kind = kind, .labels = labels, .folder = folder};
  options.folder.missing_test_is_empty = val_split > 0;
  return options;
}

TrainValSplit read_train_split(const SplitOptions& options) {
  const DatasetOptions data = options.dataset();
  return cut_train(read_dataset_split(data, dataset_kind(data), Split::kTrain), options);
}

ImageSplit read_test_split(const SplitOptions& options) {
  const DatasetOptions data = options.dataset();
  return cut_test(read_dataset_split(data, dataset_kind(data), Split::kTest), options);
}

RunData read_run_data(const SplitOptions& options) {
  const DatasetOptions data = options.dataset();
  const DatasetKind kind = dataset_kind(data);
  const ImageSplit train = read_dataset_split(data, kind, Split::kTrain);
  RunData run{.dataset = describe_dataset(kind, options.labels, train),
              .splits = cut_train(train, options),
              .test = cut_test(read_dataset_split(data, kind, Split::kTest), options)};
  return run;
}

}  // namespace cifar
