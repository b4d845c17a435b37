// checkpoint_image.h: the checkpoint header's "image" field: the images a
// model takes (core/types.h's ImageShape) and how an image of any shape is
// made one (core/image_prep.h). Part of the header (checkpoint_header.cpp).
//
//   "image": {"channels": 3, "side": 32, "crop_mode": "squash", "crop_pct": 1.0}
//
// Absent in older files (CIFAR's 3 x 32 x 32, the whole image resized);
// crop_mode and crop_pct absent in files written before them (the whole
// image resized).
#pragma once

#include <nlohmann/json.hpp>

#include <string>

#include "cifar/core/image_prep.h"
#include "cifar/core/types.h"

namespace cifar {

nlohmann::json image_field(const ImageShape& shape, const ImagePrep& prep);

// Reads the field into shape and prep; a malformed one is an error naming
// the checkpoint `source` and the field.
void read_image_field(const nlohmann::json& image, const std::string& source, ImageShape& shape,
                      ImagePrep& prep);

}  // namespace cifar
