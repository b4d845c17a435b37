// image_split.cpp: a split resized, and the validation images held out of a
// training split (see image_split.h).
#include "cifar/data/image_split.h"

#include <ATen/CPUGeneratorImpl.h>
#include <ATen/Parallel.h>
#include <fmt/format.h>

#include "cifar/formats/image.h"
#include "cifar/platform/memory.h"

namespace cifar {

void check_prepared_fit(int64_t n, const ImageShape& shape) {
  const int64_t bytes = n * shape.bytes();
  const int64_t free = available_memory_bytes();
  if (free <= 0 || bytes <= free) return;
  throw std::runtime_error(fmt::format(
      "{} images at {} px take {} in memory, more than the {} free for this process: a smaller "
      "image size, or fewer images, would fit",
      n, shape.image_size, memory_size(bytes), memory_size(free)));
}

torch::Tensor prepare_split(const torch::Tensor& images, int64_t side, const ImagePrep& prep) {
  TORCH_CHECK(images.dim() == 4, "prepare_split needs (N, C, H, W) images, got ", images.sizes());
  if (images.size(2) == side && images.size(3) == side && prep.scale_size(side) == side) {
    return images;
  }
  const int64_t n = images.size(0);
  check_prepared_fit(n, {.channels = images.size(1), .image_size = side});
  auto out = torch::empty({n, images.size(1), side, side}, torch::kUInt8);
  at::parallel_for(0, n, 64, [&](int64_t begin, int64_t end) {
    for (int64_t i = begin; i < end; ++i) out[i].copy_(prepare_image(images[i], side, prep));
  });
  return out;
}

ImageSplit take(const ImageSplit& data, const torch::Tensor& index) {
  ImageSplit out{data.images.index_select(0, index), data.labels.index_select(0, index),
                 data.class_names, data.whole};
  if (out.whole) out.whole->sizes = data.whole->sizes.index_select(0, index);
  return out;
}

TrainValIndex validation_indices(int64_t size, int64_t n, uint64_t seed) {
  if (n < 0 || n >= size) {
    throw HoldoutTooLarge(fmt::format(
        "a validation split of {} images is impossible: the training set holds {}, so it must "
        "be between 0 and {}",
        n, size, size - 1));
  }
  // Its own generator: the split depends on the seed and nothing else.
  auto generator = at::make_generator<at::CPUGeneratorImpl>(seed);
  const auto order = torch::randperm(size, generator, torch::kInt64);
  return {.train = std::get<0>(order.narrow(0, n, size - n).sort()),
          .val = std::get<0>(order.narrow(0, 0, n).sort())};
}

TrainValSplit split_validation(const ImageSplit& train, int64_t n, uint64_t seed) {
  const TrainValIndex picked = validation_indices(train.size(), n, seed);
  return {take(train, picked.train), take(train, picked.val)};
}

}  // namespace cifar
