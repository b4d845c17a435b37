// augment.cpp: augmentation presets, and translating and flipping a batch.
#include "cifar/data/augment.h"

#include <fmt/format.h>

#include <stdexcept>

namespace cifar {

namespace {
const char* name_of(PadMode mode) {
  return mode == PadMode::kZero ? "zero" : "reflect";
}

const char* name_of(FlipMode mode) {
  switch (mode) {
    case FlipMode::kNone:
      return "no flip";
    case FlipMode::kRandom:
      return "random flip";
    case FlipMode::kAlternating:
      return "alternating flip";
  }
  return "?";
}

// SplitMix64's finaliser: the run-wide flips get a generator whose seed is
// unrelated to any epoch's (seed * 1000003 + epoch, loader.cpp).
uint64_t mix(uint64_t z) {
  z += 0x9e3779b97f4a7c15ULL;
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
  return z ^ (z >> 31);
}

// Index i of a row or column of length n, reflected at the edges as
// F.pad(mode="reflect") does (the edge pixel is not repeated): -1 -> 1, n -> n - 2.
torch::Tensor reflect(const torch::Tensor& i, int64_t n) {
  auto a = i.abs();
  return torch::where(a > n - 1, 2 * (n - 1) - a, a);
}
}  // namespace

Augmentation augmentation_preset(const std::string& name) {
  if (name == "none") return kNoAugmentation;
  if (name == "crop_flip") return kCropFlip;
  if (name == "airbench") return kAirbenchAugmentation;
  throw std::invalid_argument(fmt::format(
      "unknown augmentation '{}': use none, crop_flip (4-pixel zero padding, random flips) or "
      "airbench (2-pixel reflect padding, alternating flips)",
      name));
}

std::string to_string(const Augmentation& a) {
  if (a == kNoAugmentation) return "none";
  if (a == kCropFlip) return "crop_flip";
  if (a == kAirbenchAugmentation) return "airbench";
  if (!a.translates()) return name_of(a.flip);
  return fmt::format("pad {} {}, {}", a.pad, name_of(a.pad_mode), name_of(a.flip));
}

void validate_augmentation(const Augmentation& a) {
  if (a.pad < 0 || a.pad > kMaxPad) {
    throw std::invalid_argument(
        fmt::format("augmentation padding {} is outside 0..{} pixels", a.pad, kMaxPad));
  }
}

torch::Tensor run_flips(uint64_t seed, int64_t n) {
  auto gen = at::detail::createCPUGenerator(mix(seed ^ 0x616c74666c6970ULL));  // "altflip"
  return torch::randint(0, 2, {n}, gen, torch::TensorOptions().dtype(torch::kInt64))
      .to(torch::kBool);
}

torch::Tensor translate_and_flip(const torch::Tensor& x, const torch::Tensor& offsets,
                                 const torch::Tensor& flips, int64_t pad, PadMode mode) {
  TORCH_CHECK(x.dim() == 4, "translate_and_flip needs (B, C, H, W) images, got ", x.sizes());
  TORCH_CHECK(pad >= 0 && pad < std::min(x.size(2), x.size(3)), "padding ", pad,
              " does not fit images of ", x.sizes());
  const int64_t b = x.size(0), c = x.size(1), h = x.size(2), w = x.size(3);
  const auto opts = torch::TensorOptions().dtype(torch::kInt64).device(x.device());
  const auto base_h = torch::arange(h, opts);
  const auto base_w = torch::arange(w, opts);
  // Rows and columns to read, (1 or B, H) and (1 or B, W), in the coordinates
  // of the padded image; the flip reverses the columns of the crop.
  auto rows = base_h.unsqueeze(0);
  auto cols = flips.defined() ? torch::where(flips.unsqueeze(1), (w - 1) - base_w, base_w)
                              : base_w.unsqueeze(0);
  torch::Tensor source = x;
  if (offsets.defined()) {
    rows = offsets.select(1, 0).unsqueeze(1) + rows;
    cols = offsets.select(1, 1).unsqueeze(1) + cols;
    if (mode == PadMode::kZero) {
      source = torch::constant_pad_nd(x, {pad, pad, pad, pad}, 0);  // (B, C, H + 2p, W + 2p)
    } else {
      // No padded copy: the reflection is in the indices, into the image itself.
      rows = reflect(rows - pad, h);
      cols = reflect(cols - pad, w);
    }
  }
  auto n_idx = torch::arange(b, opts).view({b, 1, 1, 1});
  auto c_idx = torch::arange(c, opts).view({1, c, 1, 1});
  return source.index({n_idx, c_idx, rows.view({rows.size(0), 1, h, 1}),
                       cols.view({cols.size(0), 1, 1, w})});  // (B, C, H, W)
}

}  // namespace cifar
