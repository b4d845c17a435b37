// splits.cpp: the splits a run reads (splits.h).
#include "cifar/data/splits.h"

namespace cifar {
namespace {
// `limit` images of `data` (all of them when limit is 0 or larger): the
// first ones of a CIFAR file, whose images come in no order; of an image
// folder, which lists its images class by class, `limit` images evenly
// spaced through that list, so that every class keeps its share.
void keep(ImageSplit& data, int64_t limit, DatasetKind kind) {
  if (limit <= 0 || limit >= data.size()) return;
  if (kind != DatasetKind::kFolder) {
    data.images = data.images.narrow(0, 0, limit);
    data.labels = data.labels.narrow(0, 0, limit);
    return;
  }
  // (limit) int64: floor(i * size / limit), strictly increasing.
  const torch::Tensor picked =
      torch::div(torch::arange(limit, torch::kInt64) * data.size(), limit, "floor");
  data.images = data.images.index_select(0, picked);
  data.labels = data.labels.index_select(0, picked);
}

TrainValSplit cut_train(const ImageSplit& whole, const SplitOptions& options, DatasetKind kind) {
  TrainValSplit split = split_validation(whole, options.val_split, options.seed);
  keep(split.train, options.train_limit, kind);
  return split;
}

ImageSplit cut_test(ImageSplit test, const SplitOptions& options, DatasetKind kind) {
  keep(test, options.test_limit, kind);
  return test;
}
}  // namespace

DatasetOptions SplitOptions::dataset() const {
  DatasetOptions options{
      .dir = data_dir, .kind = kind, .labels = labels, .folder = folder, .image_size = image_size};
  options.folder.missing_test_is_empty = val_split > 0;
  options.folder.holdout_option = "--val-split";  // a run's way round a missing test/
  return options;
}

TrainValSplit read_train_split(const SplitOptions& options) {
  const DatasetOptions data = options.dataset();
  const DatasetKind kind = dataset_kind(data);
  return cut_train(read_dataset_split(data, kind, Split::kTrain), options, kind);
}

ImageSplit read_test_split(const SplitOptions& options) {
  const DatasetOptions data = options.dataset();
  const DatasetKind kind = dataset_kind(data);
  return cut_test(read_dataset_split(data, kind, Split::kTest), options, kind);
}

RunData read_run_data(const SplitOptions& options) {
  const DatasetOptions data = options.dataset();
  const DatasetKind kind = dataset_kind(data);
  const ImageSplit train = read_dataset_split(data, kind, Split::kTrain);
  RunData run{.dataset = describe_dataset(kind, options.labels, train),
              .splits = cut_train(train, options, kind),
              .test = cut_test(read_dataset_split(data, kind, Split::kTest), options, kind)};
  return run;
}

}  // namespace cifar
