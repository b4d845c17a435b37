// image_prep.cpp: the names and checks of image preparation (image_prep.h).
#include "cifar/core/image_prep.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <stdexcept>

namespace cifar {

int64_t ImagePrep::scale_size(int64_t side) const {
  // timm's math.floor(img_size / crop_pct); the epsilon keeps 28 / 0.875 = 32
  // from flooring to 31 when crop_pct is not exactly representable.
  return static_cast<int64_t>(std::floor(static_cast<double>(side) / crop_pct + 1e-9));
}

PrepGeometry ImagePrep::geometry(int64_t h, int64_t w, int64_t side) const {
  const int64_t scale = scale_size(side);
  PrepGeometry g{.height = scale, .width = scale};
  const auto longer = [scale](int64_t l, int64_t s) {  // truncated, as Python's int()
    return static_cast<int64_t>(static_cast<double>(scale) * static_cast<double>(l) /
                                static_cast<double>(s));
  };
  if (mode == CropMode::kCenter && w < h) g.height = longer(h, w);
  if (mode == CropMode::kCenter && h < w) g.width = longer(w, h);
  // nearbyint rounds half to even in the default rounding mode.
  g.top = static_cast<int64_t>(std::nearbyint(static_cast<double>(g.height - side) / 2));
  g.left = static_cast<int64_t>(std::nearbyint(static_cast<double>(g.width - side) / 2));
  return g;
}

int64_t kept_side(int64_t side, const ImagePrep& prep, int64_t whole_size) {
  const int64_t needed = std::max({kMinKeptSide, prep.scale_size(side), whole_size});
  int64_t tier = kMinKeptSide;
  while (tier < needed) tier *= 2;
  return tier;
}

CropMode parse_crop_mode(const std::string& text) {
  return parse_name(kCropModeNames, "crop mode", text);
}

std::string to_string(CropMode mode) {
  return name_of(kCropModeNames, mode);
}

std::string to_string(const ImagePrep& prep) {
  return fmt::format("{} {:g}", to_string(prep.mode), prep.crop_pct);
}

void validate_image_prep(const ImagePrep& prep) {
  if (!(prep.crop_pct >= kMinCropPct && prep.crop_pct <= 1.0)) {
    throw std::invalid_argument(
        fmt::format("--crop-pct {:g} is outside {:g}..1: it is the share of the "
                    "resized image's side kept by the centre crop (0.875: torchvision's)",
                    prep.crop_pct, kMinCropPct));
  }
}

}  // namespace cifar
