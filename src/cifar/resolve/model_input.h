// model_input.h: the trained model cifar-eval, cifar-predict and
// cifar-export work on, resolved from their Model options
// (config/tool_configs.h's ModelInput) and the file they name: which file,
// which model, its stem, normalisation and images.
//
// Every refusal of those options is issued here, as a UsageError naming the
// option: the options alone (check_model_input), and what only the file can
// tell (resolve_weights: a weights file that does not say its model, an
// extension that names no format, an image size its model does not take;
// io/weights.h says each and returns its text). What is wrong with the file
// itself (damaged, tensors that do not fit) stays io/'s std::runtime_error.
// cifar-train's --init-weights reads its file through resolve_weights too.
#pragma once

#include <cstdint>
#include <filesystem>
#include <optional>

#include "cifar/config/tool_configs.h"
#include "cifar/io/checkpoint.h"
#include "cifar/io/weights.h"

namespace cifar {

// UsageError unless exactly one of checkpoint and weights is given, and
// model, stem, mean, std and the images' options come only with weights
// (mean and std together, each in channel_problem's range), the image size
// from 8 and the share from 0.25 (config/config.h: check_image_options).
void check_model_input(const ModelInput& input);

// The WeightsOptions a --weights file is read with: the Model options given,
// the images' over the file's with a warning (io/weights_images.h).
// num_classes: the outputs the caller needs (WeightsOptions::num_classes).
WeightsOptions weights_options(const ModelInput& input, std::optional<int64_t> num_classes);

// io/weights.h's import_weights, with each problem it names (the path's, then
// the contents') refused as a UsageError, before the model is built.
ImportedWeights resolve_weights(const std::filesystem::path& path, const WeightsOptions& options);

// Checks the options (check_model_input), then loads the model on the CPU:
// the checkpoint, or the weights dressed as a checkpoint (no optimiser
// state); logs which file, which model and, for weights, the normalisation
// and where it came from.
LoadedCheckpoint load_model_input(const ModelInput& input,
                                  std::optional<int64_t> num_classes = std::nullopt);

}  // namespace cifar
