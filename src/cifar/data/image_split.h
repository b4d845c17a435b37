// image_split.h: one split of a data set, held whole in memory, and the
// validation images held out of a training split.
//
// Every reader (CIFAR-10: cifar10.h, CIFAR-100: cifar100.h, image folders:
// image_folder.h) gives a split as one uint8 tensor (N, 3, H, W) and one
// int64 label tensor (N): batches are taken by index from it (loader.h),
// never sample by sample.
#pragma once

#include <torch/torch.h>

#include <cstdint>
#include <string>
#include <vector>

namespace cifar {

// Which split of a data set: the training, validation or test images (only
// an image folder may have a validation split of its own, val/).
enum class Split { kTrain, kVal, kTest };

// One split of a data set (CIFAR-10, CIFAR-100, an image folder: see
// dataset.h), resident in memory.
struct ImageSplit {
  torch::Tensor images;                  // (N, 3, S, S) uint8
  torch::Tensor labels;                  // (N) int64, values 0..classes-1
  std::vector<std::string> class_names;  // one per class, in label order

  int64_t size() const { return labels.size(0); }
};

// images (N, C, H, W) uint8 -> (N, C, side, side) uint8, each image resized
// as formats/image.h's resize_image resizes one (bilinear, antialiased,
// rounded): CIFAR's images at another --image-size. The input itself when
// it already has that size.
torch::Tensor resize_split(const torch::Tensor& images, int64_t side);

// A training split divided in two: `val` holds n images chosen at random by
// `seed` alone (the same n images for the same seed and data, whatever else
// the run does: it draws from its own generator), `train` the rest. Both keep
// the original order of their images. n = 0 gives an empty `val`; n must
// leave at least one training image.
struct TrainValSplit {
  ImageSplit train;
  ImageSplit val;
};
TrainValSplit split_validation(const ImageSplit& train, int64_t n, uint64_t seed);

// The indices split_validation takes from a split of `size` images: `val`
// (n) and `train` (size - n), each sorted, int64. UsageError as above.
struct TrainValIndex {
  torch::Tensor train;
  torch::Tensor val;
};
TrainValIndex validation_indices(int64_t size, int64_t n, uint64_t seed);

}  // namespace cifar
