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
#include <optional>
#include <stdexcept>
#include <string>
#include <vector>

#include "cifar/core/image_prep.h"
#include "cifar/core/types.h"

namespace cifar {

// Which split of a data set: the training, validation or test images (only
// an image folder may have a validation split of its own, val/).
enum class Split { kTrain, kVal, kTest };

// The images a run's model takes, resolved once from the options, the data
// set's kind and the recipe (resolve/run_data.cpp; cifar-eval's from the
// checkpoint) and read unchanged by the data set's reader: every split
// prepared at image_size as prep says or, with whole_size set, the training
// split kept whole for random resized crops (crops.h).
struct ImageSpec {
  int64_t image_size = kCifarImageSize;  // --image-size: the side, px
  ImagePrep prep;                        // how an image of any shape is made image_size square
  int64_t whole_size = 0;  // > 0: the training split kept whole, squashed to this side
  double min_scale = 0;    // then a random crop's least share of the area (--crop-scale)
};

// The tier a split's photos are kept at before they are prepared
// (core/image_prep.h: kept_side).
inline int64_t kept_side_of(const ImageSpec& image) {
  return kept_side(image.image_size, image.prep, image.whole_size);
}

// Training images kept whole for random resized crops (data/crops.h):
// stored squashed to a square larger than the model's side, with what is
// needed to cut them to it.
struct WholeImages {
  torch::Tensor sizes;     // (N, 2) int64: each image's (height, width) as read
  int64_t image_size = 0;  // the model's side, that crops are resized to
  ImagePrep prep;          // the evaluation view (an unaugmented batch)
  double min_scale = 0;    // a random crop's least share of the image's area
};

// One split of a data set (CIFAR-10, CIFAR-100, an image folder: see
// dataset.h), resident in memory.
struct ImageSplit {
  torch::Tensor images;                  // (N, 3, S, S) uint8
  torch::Tensor labels;                  // (N) int64, values 0..classes-1
  std::vector<std::string> class_names;  // one per class, in label order
  // Set when `images` are whole images kept for random resized crops;
  // unset: images prepared at the model's side, S.
  std::optional<WholeImages> whole{};

  int64_t size() const { return labels.size(0); }
  // The side of the images the model takes: whole->image_size, else S.
  int64_t image_size() const { return whole ? whole->image_size : images.size(3); }
};

// The images at `index` ((K) int64) of `data`, with their labels (and sizes).
ImageSplit take(const ImageSplit& data, const torch::Tensor& index);

// images (N, C, H, W) uint8 -> (N, C, side, side) uint8, each image prepared
// as formats/image.h's prepare_image prepares one (bilinear, antialiased,
// rounded): CIFAR's images at another --image-size or crop. The input itself
// when that leaves them as they are (their size, taken whole).
torch::Tensor prepare_split(const torch::Tensor& images, int64_t side, const ImagePrep& prep);

// Throws, before the memory is taken, when `n` prepared images of `shape`
// (a byte each) would need more than the memory free for this process (the
// allocation would fail, or swap until the system ends the process), saying
// how much and what to lower.
void check_prepared_fit(int64_t n, const ImageShape& shape);

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

// A validation split the training split cannot give (n >= its size), found
// only as the data is read: resolve/ refuses the settings with its text.
class HoldoutTooLarge : public std::invalid_argument {
 public:
  using std::invalid_argument::invalid_argument;
};

// The indices split_validation takes from a split of `size` images: `val`
// (n) and `train` (size - n), each sorted, int64. HoldoutTooLarge unless
// 0 <= n < size.
struct TrainValIndex {
  torch::Tensor train;
  torch::Tensor val;
};
TrainValIndex validation_indices(int64_t size, int64_t n, uint64_t seed);

}  // namespace cifar
