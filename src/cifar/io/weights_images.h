// weights_images.h: the images a weights file's model takes (their side and
// how an image is made that size, core/image_prep.h), from what the file
// records and what cifar-eval, cifar-predict and cifar-export are given.
//
// The rule is --mean and --std's: a value given (--image-size, --crop-mode,
// --crop-pct) is used, over the file's; the file's (its metadata, a
// checkpoint's header; a key cifar-train left out holds its default), else
// the defaults, 32 px and squash 1 (the whole image resized: CIFAR's). Since
// each changes the answer, none changes silently: a given value that differs
// from the one the file records is one warning naming both, and a file that
// records neither (a .pt, a file from elsewhere), with nothing given, is one
// warning naming what was assumed and the options that say otherwise.
#pragma once

#include <cstdint>
#include <optional>
#include <string>

#include "cifar/core/image_prep.h"
#include "cifar/io/weights_metadata.h"

namespace cifar {

// What the command line gave; unset: not given.
struct ImageOptions {
  std::optional<int64_t> image_size = std::nullopt;
  std::optional<CropMode> mode = std::nullopt;
  std::optional<double> crop_pct = std::nullopt;
  // Warn when neither the file nor the options say (the tools that
  // evaluate, predict or export; not --init-weights, whose run says).
  bool warn_unsaid = false;
};

struct ImagesTaken {
  int64_t image_size = 32;
  ImagePrep prep;
  std::string note{};  // where they came from, for the log
};

// `says`: what the file's description is ("the file's metadata").
ImagesTaken images_taken(const WeightsMetadata& meta, const ImageOptions& options,
                         const std::string& source, const std::string& says);

}  // namespace cifar
