// image_prep.h: how an image of any shape becomes the model's side x side
// input, in timm's terms (its eval transforms' crop_mode and crop_pct).
//
//   squash  the whole image resized to floor(side / crop_pct) square (its
//           aspect ratio not kept), then the centre side x side
//   center  the shorter side resized to floor(side / crop_pct) (the aspect
//           ratio kept), then the centre side x side: torchvision's
//           Resize(256) + CenterCrop(224) is center at 0.875
//
// squash at 1.0 is the whole image resized to side x side: CIFAR's way, and
// what a checkpoint or weights file that records no preparation was trained
// with. An image folder's default is torchvision's (center, 0.875). The
// preparation is data: a checkpoint keeps it, and cifar-eval, cifar-predict
// and the Python side prepare images with it.
#pragma once

#include <array>
#include <cstdint>
#include <string>

#include "cifar/core/enum_names.h"

namespace cifar {

enum class CropMode { kSquash, kCenter };
// --crop-mode's names (config/ reads them, and refuses others with both explained).
inline constexpr std::array<EnumName<CropMode>, 2> kCropModeNames{
    {{CropMode::kSquash, "squash"}, {CropMode::kCenter, "center"}}};

// Where an image is cut: the size it is resized to, and the top-left corner
// of the centre side x side crop in the resized image.
struct PrepGeometry {
  int64_t height = 0, width = 0;
  int64_t top = 0, left = 0;
};

struct ImagePrep {
  CropMode mode = CropMode::kSquash;
  double crop_pct = 1.0;  // the crop's share of the resized side, in [kMinCropPct, 1]

  // The side the image (squash) or its shorter side (center) is resized to.
  int64_t scale_size(int64_t side) const;
  // For an image of height h and width w: squash resizes it to
  // scale_size(side) square; center its shorter side to that and the longer
  // to int(scale * long / short) (torchvision's Resize(int)); the corner is
  // int(round((size - side) / 2)) with Python's round, half to even
  // (torchvision's CenterCrop).
  PrepGeometry geometry(int64_t h, int64_t w, int64_t side) const;
  bool operator==(const ImagePrep&) const = default;
};

// Before it is prepared, a decoded photo is reduced so that its shorter side
// is at most kept_side (its aspect kept; a smaller photo is kept as it is):
// the copy an image folder's cache keeps, from which every size of the same
// tier is prepared without decoding again, and what cifar-predict and the
// Python side prepare too. The tier is the least power of two, at least
// kMinKeptSide, not below what the preparation resizes to (scale_size, or
// whole_size for images kept whole): 256 for every side up to 224 at crop
// 0.875, 512 for 224 px kept whole at twice the side.
inline constexpr int64_t kMinKeptSide = 256;
int64_t kept_side(int64_t side, const ImagePrep& prep, int64_t whole_size = 0);

inline constexpr ImagePrep kWholeImage{};  // CIFAR's, and files that record none
inline constexpr ImagePrep kTorchvisionEval{CropMode::kCenter, 0.875};
inline constexpr double kMinCropPct = 0.25;

// "squash" or "center", as a file or checked text gives it: std::runtime_error
// naming both otherwise (config/ refuses --crop-mode's other text first).
CropMode parse_crop_mode(const std::string& text);
std::string to_string(CropMode mode);
// "center 0.875".
std::string to_string(const ImagePrep& prep);
// std::invalid_argument unless crop_pct is in [kMinCropPct, 1]: config/
// refuses --crop-pct's other values, and a reader of a file names the file.
void validate_image_prep(const ImagePrep& prep);

}  // namespace cifar
