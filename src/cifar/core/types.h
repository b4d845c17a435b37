// types.h: the small types every layer shares.
//
// Mixed-precision mode, per-channel normalisation (CIFAR-10's by default),
// the image geometry, and the name-to-tensor map that state dicts and
// weight files use. Plain data, so that a low layer (autocast, the image
// decoder, the file formats) never pulls in the command-line configuration.
#pragma once

#include <torch/torch.h>

#include <array>
#include <cstdint>
#include <map>
#include <string>

#include "cifar/core/enum_names.h"

namespace cifar {

// The geometry of a model's input images, as data: `channels` planes of
// `image_size` x `image_size` pixels. The data set gives it (data/dataset.h: CIFAR's
// files, or an image folder at the size asked for), the model is built for
// it, and checkpoints and weights files carry it to evaluation and
// prediction. Class counts come from the data too.
struct ImageShape {
  int64_t channels = 3;  // RGB: what the decoders give and Normalization covers
  int64_t image_size = 0;
  constexpr int64_t bytes() const { return channels * image_size * image_size; }  // one uint8 image
  bool operator==(const ImageShape&) const = default;
};
// CIFAR's image side: the CIFAR readers' images, an image folder's size
// unless a recipe or --image-size says otherwise, and the size a checkpoint
// or weights file that records none was trained at.
inline constexpr int64_t kCifarImageSize = 32;

// The highest test-time augmentation level (infer/evaluate.h says what each
// level does); checkpoints record the level they were trained for.
inline constexpr int64_t kMaxTta = 3;

// Mixed precision: off, bf16 autocast (no loss scaling needed), fp16
// autocast with dynamic loss scaling (optim/grad_scaler.h), or auto: what the
// device runs natively, resolved once per run (platform/precision.h), so no
// part past that resolution ever sees kAuto.
enum class AmpMode { kOff, kBf16, kFp16, kAuto };
// --amp's names, in the order its refusal lists them (config/ reads them).
inline constexpr std::array<EnumName<AmpMode>, 4> kAmpNames{{{AmpMode::kAuto, "auto"},
                                                             {AmpMode::kBf16, "bf16"},
                                                             {AmpMode::kFp16, "fp16"},
                                                             {AmpMode::kOff, "off"}}};
const char* to_string(AmpMode amp);

// Per-channel normalisation applied to images scaled to [0, 1].
struct Normalization {
  std::array<double, 3> mean{0.4914, 0.4822, 0.4465};
  std::array<double, 3> std{0.2470, 0.2435, 0.2616};
  bool operator==(const Normalization&) const = default;
};

// Tensors by name (a state dict), and string metadata by key.
using TensorMap = std::map<std::string, torch::Tensor>;
using StringMap = std::map<std::string, std::string>;

}  // namespace cifar
