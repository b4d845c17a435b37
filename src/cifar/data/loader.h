// loader.h: batches from a split that lives whole on the training device.
//
// The uint8 images (about 150 MB for the training split) are copied to the
// device once. Each epoch draws its plan on the CPU from a generator seeded
// by (seed, epoch): the shuffled order, the crop offsets and the flips of the
// augmentation (augment.h), then copies the plan to the device in one go. A
// batch is then gathered by index, translated and flipped in one indexing
// operation, converted to float and normalised, all on the device: no
// host-to-device copy per step. Whole images (image_split.h) are cut to the
// model's side by crop boxes instead (crops.h). A plan depends on (seed, epoch) and the
// augmentation alone, so a resumed run draws the same epochs as a straight
// one, on any device.
#pragma once

#include <torch/torch.h>

#include <cstdint>
#include <optional>

#include "cifar/core/pixel_normalizer.h"
#include "cifar/core/types.h"
#include "cifar/data/augment.h"
#include "cifar/data/image_split.h"

namespace cifar {

struct EpochPlan {
  torch::Tensor order;    // (N) int64 sample indices
  torch::Tensor offsets;  // (N, 2) int64 crop offsets in 0..2*pad (defined when translating)
  torch::Tensor flips;    // (N) bool horizontal flips (defined when flipping)
  // How `offsets` are read (translate_and_flip): the crop's corner in the
  // image padded by `pad` on each side, the border filled as pad_mode says.
  int64_t pad = 4;
  PadMode pad_mode = PadMode::kZero;
  // Whole images (crops.h): (N, 4) float crop boxes, random when augmenting,
  // else the evaluation's; undefined for images at the model's side.
  torch::Tensor boxes{};
};

struct Batch {
  torch::Tensor images;  // (B, 3, S, S) float, normalised (S: image_size())
  torch::Tensor labels;  // (B) int64
};

class DeviceDataset {
 public:
  DeviceDataset(const ImageSplit& data, torch::Device device, Normalization norm,
                bool channels_last = false);

  int64_t size() const { return labels_.size(0); }
  const torch::Tensor& labels() const { return labels_; }
  const torch::Tensor& images() const { return images_; }  // (N, 3, S, S) uint8
  bool channels_last() const { return channels_last_; }    // batches in channels-last layout
  // The side of a batch's images: the model's (S, or a whole image's crop side).
  int64_t image_size() const { return whole_ ? whole_->image_size : images_.size(3); }
  torch::Device device() const { return images_.device(); }

  // The same (seed, epoch) always gives the same plan, on any device.
  // Epochs count from 1 (kAlternating mirrors the whole set on even epochs).
  // Draws, in this order, from the generator of (seed, epoch): the order
  // (when shuffling), the offsets (when translating) or, for whole images,
  // random resized crop boxes (crops.h) in their place, the flips (kRandom);
  // kAlternating's flips come from run_flips(seed) instead.
  EpochPlan plan_epoch(bool shuffle, const Augmentation& augmentation, uint64_t seed,
                       int64_t epoch) const;
  // augment: kCropFlip, else kNoAugmentation.
  EpochPlan plan_epoch(bool shuffle, bool augment, uint64_t seed, int64_t epoch) const;

  // Samples plan.order[start, start + count).
  Batch batch(const EpochPlan& plan, int64_t start, int64_t count) const;

 private:
  torch::Tensor images_;              // (N, 3, S, S) uint8 on the device
  torch::Tensor labels_;              // (N) int64 on the device
  std::optional<WholeImages> whole_;  // sizes on the CPU; set for whole images
  torch::Tensor eval_boxes_;          // (N, 4) float on the device, for whole images
  PixelNormalizer normalize_;
  bool channels_last_;
};

// Random crop with 4-pixel zero padding and horizontal flip, applied to a
// whole uint8 batch: x (B, 3, S, S), offsets (B, 2) in 0..8, flips (B).
// translate_and_flip(x, offsets, flips, 4, PadMode::kZero).
torch::Tensor crop_and_flip(const torch::Tensor& x, const torch::Tensor& offsets,
                            const torch::Tensor& flips);

}  // namespace cifar
