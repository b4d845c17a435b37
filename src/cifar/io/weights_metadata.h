// weights_metadata.h: what a .safetensors file's __metadata__ says about the
// model, read and written.
//
// Keys, all strings (lists as JSON): "model", "stem", "mean" and "std" (three
// numbers each), "classes" (the class names), "dataset" (what it was trained
// on, e.g. cifar100; absent for CIFAR-10), "image_size" (the side of the
// images it takes, px; absent for 32), "crop_mode" and "crop_pct" (how an
// image is made that size, core/image_prep.h; absent for the whole image
// resized, squash 1), "cifar_train_version", and
// "format": "pt" (Hugging Face's marker for PyTorch tensors). cifar-train
// writes all of them; files from elsewhere may carry none.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "cifar/core/image_prep.h"
#include "cifar/core/types.h"
#include "cifar/io/checkpoint.h"
#include "cifar/model/models.h"

namespace cifar {

// The most class names a weights file may list (as a checkpoint header).
inline constexpr size_t kMaxClasses = 100000;

// What the metadata says; unset where it says nothing.
struct WeightsMetadata {
  std::optional<std::string> model;  // not checked against the known models here
  std::optional<ResNetStem> stem;
  std::optional<Normalization> normalization;  // set only when both mean and std are there
  std::optional<std::vector<std::string>> class_names;
  std::optional<std::string> dataset;  // absent: cifar10, or not said
  std::optional<int64_t> image_size;   // absent: 32 (kCifarImageSize), or not said
  std::optional<ImagePrep> prep;       // absent: the whole image resized, or not said
  // The file names cifar_train_version: a key it lacks holds cifar-train's
  // default (image_size 32, squash 1), said by leaving it out.
  bool from_cifar_train = false;
};

// Reads the keys above from a weights file's metadata. Throws
// std::runtime_error naming `source`, the key and the value when a value is
// malformed (a stem that is not cifar or imagenet, a mean that is not three
// numbers or outside the range channel_problem allows, classes that are not a
// list of names or more than kMaxClasses of them).
// Half a normalisation (a mean without a std, or the reverse) is refused
// unless `normalization_given` (--mean and --std replace it).
WeightsMetadata parse_weights_metadata(const StringMap& metadata, const std::string& source,
                                       bool normalization_given = false);

// The metadata cifar-train writes for the model `info` describes.
StringMap weights_metadata(const CheckpointInfo& info);

}  // namespace cifar
