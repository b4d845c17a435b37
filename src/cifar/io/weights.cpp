// weights.cpp: building a model from a weights file (see weights.h).
#include "cifar/io/weights.h"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <stdexcept>

#include "cifar/core/errors.h"
#include "cifar/core/version.h"
#include "cifar/data/data.h"

namespace cifar {
namespace fs = std::filesystem;
namespace {

UsageError no_model(const std::string& source) {
  return UsageError(
      fmt::format("weights file {} does not say which model it holds; pass --model ({})", source,
                  fmt::join(model_names(), " or ")));
}

// What reading a .pt file for `model_name` may allocate: four float64 copies
// of the model's state dict (the weights, and what an optimiser keeps beside
// them when a training checkpoint dict holds both), and 16 MiB.
pickle::Limits torch_file_limits(const std::string& model_name, ResNetStem stem) {
  const Classifier model = make_model(ModelOptions(model_name).stem(stem));
  int64_t values = 0;
  for (const auto& t : model->parameters()) values += t.numel();
  for (const auto& t : model->buffers()) values += t.numel();
  return {.max_bytes = static_cast<uint64_t>(values) * 8 * 4 + (uint64_t{16} << 20),
          .why = fmt::format("four float64 copies of a {} state dict of {} values, and 16 MiB",
                             model_name, values)};
}

}  // namespace

ImportedWeights import_weights(const fs::path& path, const WeightsOptions& options) {
  const std::string source = path.string();
  pickle::Limits limits;
  if (weights_format(path) == WeightsFormat::kTorch) {  // no metadata: the model is given
    if (!options.model) throw no_model(source);
    check_model_name(*options.model);
    limits = torch_file_limits(*options.model,
                               options.stem ? parse_stem(*options.stem) : ResNetStem::kCifar);
  }
  const WeightsFile file = read_weights(path, limits);
  const WeightsMetadata meta = parse_weights_metadata(file.metadata, source);
  ImportedWeights out;
  if (options.model) {
    out.model_name = *options.model;
  } else if (meta.model) {
    out.model_name = *meta.model;
  } else {
    throw no_model(source);
  }
  check_model_name(out.model_name);
  out.stem = options.stem ? parse_stem(*options.stem) : meta.stem.value_or(ResNetStem::kCifar);
  out.class_names = meta.class_names.value_or(default_class_names());
  if (options.normalization) {
    out.normalization = *options.normalization;
    out.normalization_note = "as given on the command line";
  } else if (meta.normalization) {
    out.normalization = *meta.normalization;
    out.normalization_note = "from the file's metadata";
  } else {
    out.normalization_note = "the training default (the file does not say)";
  }
  for (double s : out.normalization.std) {
    if (!(s > 0))
      throw std::runtime_error(fmt::format("weights file {}: a std is not positive", source));
  }
  out.model = make_model(ModelOptions(out.model_name)
                             .num_classes(static_cast<int64_t>(out.class_names.size()))
                             .stem(out.stem));
  apply_weights(*out.model, file.tensors, out.model_name, source);
  out.model->eval();
  return out;
}

CheckpointInfo weights_info(const ImportedWeights& weights) {
  CheckpointInfo info;
  info.model = weights.model_name;
  info.stem = to_string(weights.stem);
  info.class_names = weights.class_names;
  info.num_classes = static_cast<int64_t>(weights.class_names.size());
  info.normalization = weights.normalization;
  info.libtorch_version = libtorch_version();
  return info;
}

LoadedWeights load_weights(const fs::path& path, const WeightsOptions& options) {
  ImportedWeights weights = import_weights(path, options);
  return {weights_info(weights), std::move(weights.model), std::move(weights.normalization_note)};
}

LoadedCheckpoint weights_as_checkpoint(LoadedWeights weights) {
  LoadedCheckpoint c;
  c.info = std::move(weights.info);
  c.model = std::move(weights.model);
  c.header.info = c.info;
  return c;
}

}  // namespace cifar
