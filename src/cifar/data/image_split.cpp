// image_split.cpp: the validation images held out of a training split (see image_split.h).
#include "cifar/data/image_split.h"

#include <ATen/CPUGeneratorImpl.h>
#include <fmt/format.h>

#include "cifar/core/errors.h"

namespace cifar {

TrainValSplit split_validation(const ImageSplit& train, int64_t n, uint64_t seed) {
  const int64_t size = train.size();
  if (n < 0 || n >= size) {
    throw UsageError(fmt::format(
        "a validation split of {} images is impossible: the training set holds {}, so it must "
        "be between 0 and {}",
        n, size, size - 1));
  }
  // Its own generator: the split depends on the seed and nothing else.
  auto generator = at::make_generator<at::CPUGeneratorImpl>(seed);
  const auto order = torch::randperm(size, generator, torch::kInt64);
  const auto val_index = std::get<0>(order.narrow(0, 0, n).sort());
  const auto train_index = std::get<0>(order.narrow(0, n, size - n).sort());
  auto take = [&](const torch::Tensor& index) {
    return ImageSplit{train.images.index_select(0, index), train.labels.index_select(0, index),
                      train.class_names};
  };
  return {take(train_index), take(val_index)};
}

}  // namespace cifar
