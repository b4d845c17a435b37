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

namespace cifar {

// The models' input images (CIFAR's geometry; other data sets are resized to
// it). Class counts come from the data (data/dataset.h).
inline constexpr int64_t kImageSide = 32;
inline constexpr int64_t kChannels = 3;
inline constexpr int64_t kImageBytes = kChannels * kImageSide * kImageSide;  // 3,072

// Mixed precision: off, bf16 autocast (no loss scaling needed), or fp16
// autocast with dynamic loss scaling (optim/grad_scaler.h).
// The highest test-time augmentation level (infer/evaluate.h says what each
// level does); checkpoints record the level they were trained for.
inline constexpr int64_t kMaxTta = 3;

enum class AmpMode { kOff, kBf16, kFp16 };
AmpMode parse_amp(const std::string& text);  // UsageError for unknown names
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
