// augment.h: training-time augmentation, as a small value with named presets.
//
// An Augmentation says how far images are translated (a crop of the image
// padded by `pad` pixels on each side, so a shift of up to `pad` pixels each
// way), how the border is filled (zeros or a reflection of the image), and
// how images are flipped left-right:
//   kRandom       each image, each epoch, with probability 1/2
//   kAlternating  each image gets one random flip for the whole run (drawn
//                 from the seed alone), and every other epoch the whole set
//                 is flipped on top: epochs 1, 3, 5, ... as drawn, epochs
//                 2, 4, ... mirrored, so any two consecutive epochs show every
//                 image both ways (airbench's "altflip"; its epoch 0 is our 1)
// Presets (augmentation_preset() takes these names):
//   none       nothing
//   crop_flip  4-pixel zero padding, random flips: --augment, the tutorial's
//              way; the same draws as ever, so earlier runs repeat exactly
//   airbench   2-pixel reflect padding, alternating flips (airbench94)
// DeviceDataset::plan_epoch (loader.h) draws the offsets and flips; the
// functions below apply them to a whole uint8 batch on its device.
#pragma once

#include <torch/torch.h>

#include <cstdint>
#include <string>

namespace cifar {

enum class PadMode { kZero, kReflect };
enum class FlipMode { kNone, kRandom, kAlternating };

struct Augmentation {
  int64_t pad = 0;                    // translate by up to `pad` pixels each way (0: none)
  PadMode pad_mode = PadMode::kZero;  // what fills the border a translation uncovers
  FlipMode flip = FlipMode::kNone;

  bool translates() const { return pad > 0; }
  bool flips() const { return flip != FlipMode::kNone; }
  bool enabled() const { return translates() || flips(); }
  bool operator==(const Augmentation&) const = default;
};

inline constexpr Augmentation kNoAugmentation{};
inline constexpr Augmentation kCropFlip{4, PadMode::kZero, FlipMode::kRandom};
inline constexpr Augmentation kAirbenchAugmentation{2, PadMode::kReflect, FlipMode::kAlternating};

// The largest pad: a reflection cannot reach further than the image's width - 1.
inline constexpr int64_t kMaxPad = 31;

// "none", "crop_flip" or "airbench" (names in code: no option takes them);
// std::invalid_argument listing them otherwise.
Augmentation augmentation_preset(const std::string& name);
// The preset's name, else a description ("pad 3 reflect, random flip").
std::string to_string(const Augmentation& augmentation);
// std::invalid_argument unless 0 <= pad <= kMaxPad (the recipes set it, no option).
void validate_augmentation(const Augmentation& augmentation);

// Each image's flip for a whole run of kAlternating: (n) bool, on the CPU,
// from `seed` alone (a generator of its own, not any epoch's).
torch::Tensor run_flips(uint64_t seed, int64_t n);

// x (B, C, H, W), any dtype, on any device. offsets (B, 2) int64 (row,
// column) in 0..2*pad: the top-left corner of the crop in the image padded by
// `pad` (pad, pad is no shift); undefined: no translation. flips (B) bool,
// applied after the crop; undefined: none. Returns (B, C, H, W), one gather.
torch::Tensor translate_and_flip(const torch::Tensor& x, const torch::Tensor& offsets,
                                 const torch::Tensor& flips, int64_t pad, PadMode mode);

}  // namespace cifar
