// model_input.h: the trained model that cifar-eval, cifar-predict and
// cifar-export work on, and loading it.
//
// Exactly one file gives it: a checkpoint written by cifar-train
// (--checkpoint), which says everything about the model itself, or a weights
// file (--weights: .safetensors, .pt, .pth, e.g. saved in Python), for which
// --model, --stem, --mean, --std, --image-size, --crop-mode and --crop-pct
// fill in what its metadata does not say (and override what it says: the
// images' options with a warning, io/weights_images.h).
// The fields are parsed values (the "Model" group of config/option_groups.h
// parses the text).
#pragma once

#include <array>
#include <optional>
#include <string>

#include "cifar/core/types.h"
#include "cifar/io/checkpoint.h"
#include "cifar/model/models.h"

namespace cifar {

using Channels = std::array<double, 3>;  // red, green, blue

struct ModelInput {
  std::string checkpoint;
  std::string weights;
  std::optional<std::string> model;  // a name make_model knows (checked when parsed)
  std::optional<ResNetStem> stem;
  std::optional<Channels> mean;  // --mean and --std come together
  std::optional<Channels> std;   // each > 0
  // With --weights: the images the model takes, over what the file records
  // (io/weights_images.h); 0, "auto" and 0: the file's.
  int64_t image_size = 0;
  std::string crop_mode = "auto";
  double crop_pct = 0;

  bool operator==(const ModelInput&) const = default;
};

// cifar-export: the model and where its weights go.
struct ExportConfig : ModelInput {
  std::string out;  // .safetensors, .pt or .pth
};

// UsageError unless exactly one of checkpoint and weights is given, and
// model, stem, mean, std and the images' options come only with weights
// (mean and std together). The image size and share are checked with it by
// config/'s validate (check_image_options, config/config.h).
void validate(const ModelInput& input);

// mean and std as one Normalization; none when neither is given.
std::optional<Normalization> normalization(const ModelInput& input);

// Checks it (validate), then loads the model on the CPU: the checkpoint, or
// the weights dressed as a checkpoint (no optimiser state); logs which file,
// which model and, for weights, the normalisation and where it came from.
// num_classes: the outputs the caller needs (WeightsOptions::num_classes).
LoadedCheckpoint load_model_input(const ModelInput& input,
                                  std::optional<int64_t> num_classes = std::nullopt);

}  // namespace cifar
