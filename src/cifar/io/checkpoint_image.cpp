// checkpoint_image.cpp: the checkpoint header's "image" field (checkpoint_image.h).
#include "cifar/io/checkpoint_image.h"

#include <fmt/format.h>

#include "cifar/io/checkpoint.h"
#include "cifar/io/checkpoint_bytes.h"

namespace cifar {
using checkpoint_bytes::fail;
using nlohmann::json;

namespace {
// The preparation in the header's "image" field (absent in files written
// before it: the whole image resized).
ImagePrep image_prep_field(const json& image, const std::string& source) {
  ImagePrep prep;
  const auto mode = image.find("crop_mode");
  const auto pct = image.find("crop_pct");
  if (mode == image.end() && pct == image.end()) return prep;
  try {
    if (mode == image.end() || !mode->is_string() || pct == image.end() || !pct->is_number()) {
      throw std::runtime_error("incomplete");
    }
    prep.mode = parse_crop_mode(mode->get<std::string>());
    prep.crop_pct = pct->get<double>();
    validate_image_prep(prep);
  } catch (const std::exception&) {
    fail(source, fmt::format("header field \"image\" is {}; its crop_mode must be squash or "
                             "center and its crop_pct a number from {:g} to 1",
                             image.dump(), kMinCropPct));
  }
  return prep;
}

}  // namespace

json image_field(const ImageShape& shape, const ImagePrep& prep) {
  return {{"channels", shape.channels},
          {"side", shape.image_size},
          {"crop_mode", to_string(prep.mode)},
          {"crop_pct", prep.crop_pct}};
}

void read_image_field(const json& image, const std::string& source, ImageShape& shape,
                      ImagePrep& prep) {
  const auto value = [&](const char* key) {
    const auto field = image.find(key);
    return field != image.end() && field->is_number_integer() ? field->get<int64_t>() : -1;
  };
  shape = ImageShape{.channels = value("channels"), .image_size = value("side")};
  if (shape.channels != 3 || shape.image_size < 1 || shape.image_size > kMaxImageSide) {
    fail(source, fmt::format("header field \"image\" is {}; this cifar-train takes 3 channels "
                             "of 1 to {} px a side",
                             image.dump(), kMaxImageSide));
  }
  prep = image_prep_field(image, source);
}

}  // namespace cifar
