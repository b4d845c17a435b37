// model_input.cpp: see model_input.h.
#include "cifar/resolve/model_input.h"

#include <fmt/format.h>
#include <fmt/ranges.h>
#include <spdlog/spdlog.h>

#include <filesystem>
#include <string>
#include <utility>
#include <vector>

#include "cifar/config/config.h"
#include "cifar/config/normalization_flags.h"
#include "cifar/core/errors.h"
#include "cifar/core/file_io.h"
#include "cifar/core/image_prep.h"
#include "cifar/data/resolution.h"
#include "cifar/io/normalization_range.h"

namespace cifar {

void check_model_input(const ModelInput& input) {
  if (input.checkpoint.empty() && input.weights.empty()) {
    throw UsageError(
        "give --checkpoint FILE (written by cifar-train) or --weights FILE "
        "(.safetensors, .pt, .pth, .ckpt, .bin), one of them");
  }
  if (!input.checkpoint.empty() && !input.weights.empty()) {
    throw UsageError(
        "--checkpoint and --weights both name the model: give one of them (a checkpoint "
        "written by cifar-train, or a weights file)");
  }
  if (!input.checkpoint.empty()) {
    std::vector<std::string> given;
    if (input.model) given.emplace_back("--model");
    if (input.stem) given.emplace_back("--stem");
    if (input.mean) given.emplace_back("--mean");
    if (input.std) given.emplace_back("--std");
    if (input.image_size > 0) given.emplace_back("--image-size");
    if (input.crop_mode != "auto") given.emplace_back("--crop-mode");
    if (input.crop_pct > 0) given.emplace_back("--crop-pct");
    if (!given.empty()) {
      throw UsageError(fmt::format(
          "{} go{} with --weights; a checkpoint carries its own model, stem, normalisation and "
          "image preparation",
          fmt::join(given, ", "), given.size() == 1 ? "es" : ""));
    }
  }
  // A folder given as the model file (a run folder, most often) is said
  // before any data is read, with the model files it holds.
  for (const auto& [what, file] :
       {std::pair{"checkpoint", input.checkpoint}, std::pair{"weights file", input.weights}}) {
    std::error_code ec;
    if (!file.empty() && std::filesystem::is_directory(file, ec)) check_readable_file(file, what);
  }
  check_image_options(input.image_size, input.crop_pct, "the weights file's", "the weights file's");
  check_mean_std_pair(input.mean.has_value(), input.std.has_value());
  for (const bool is_std : {false, true}) {  // the command line's parse checks them too
    const auto& values = is_std ? input.std : input.mean;
    if (!values) continue;
    if (const auto problem = channel_problem(*values, is_std); !problem.empty()) {
      throw UsageError(
          fmt::format("--{} {}: {}", is_std ? "std" : "mean", fmt::join(*values, ","), problem));
    }
  }
}

WeightsOptions weights_options(const ModelInput& input, std::optional<int64_t> num_classes) {
  WeightsOptions options;
  options.model = input.model;
  options.stem = input.stem;
  options.normalization = normalization(input);
  options.num_classes = num_classes;
  if (input.image_size > 0) options.images.image_size = input.image_size;
  if (input.crop_mode != "auto") options.images.mode = parse_crop_mode(input.crop_mode);
  if (input.crop_pct > 0) options.images.crop_pct = input.crop_pct;
  options.images.warn_unsaid = true;
  return options;
}

ImportedWeights resolve_weights(const std::filesystem::path& path, const WeightsOptions& options) {
  if (const std::string problem = weights_path_problem(path, options); !problem.empty()) {
    throw UsageError(problem);
  }
  WeightsContents contents = read_weights_contents(path, options);
  if (const std::string problem = weights_contents_problem(contents, options, path);
      !problem.empty()) {
    throw UsageError(problem);
  }
  return import_weights(std::move(contents), options, path);
}

LoadedCheckpoint load_model_input(const ModelInput& input, std::optional<int64_t> num_classes) {
  check_model_input(input);
  if (!input.checkpoint.empty()) {
    LoadedCheckpoint checkpoint = load_checkpoint(input.checkpoint, "--weights");
    const auto& info = checkpoint.info;
    spdlog::info("checkpoint: {} ({}, epoch {}, LibTorch {})", input.checkpoint, info.model,
                 info.epoch, info.libtorch_version);
    return checkpoint;
  }
  ImportedWeights weights = resolve_weights(input.weights, weights_options(input, num_classes));
  const Normalization& n = weights.normalization;
  spdlog::info("weights: {} ({}); normalisation: mean [{}] std [{}], {}; images: {}", input.weights,
               weights.model_name, fmt::join(n.mean, ", "), fmt::join(n.std, ", "),
               weights.normalization_note, weights.image_note);
  LoadedCheckpoint loaded;  // no optimiser state: nothing to resume
  loaded.info = weights_info(weights);
  loaded.model = weights.model;
  loaded.class_names_known = weights.class_names_known;
  loaded.normalization_known = weights.normalization_known;
  loaded.info.tta = weights.tta.value_or(0);
  loaded.tta_known = weights.tta.has_value();
  return loaded;
}

}  // namespace cifar
