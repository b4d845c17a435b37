// weights.cpp: building a model from a weights file (see weights.h).
#include "cifar/io/weights.h"

#include <fmt/format.h>
#include <fmt/ranges.h>
#include <spdlog/spdlog.h>

#include <algorithm>
#include <cstring>
#include <stdexcept>

#include "cifar/core/file_io.h"
#include "cifar/core/names.h"
#include "cifar/core/registry.h"
#include "cifar/core/version.h"
#include "cifar/data/cifar10.h"
#include "cifar/data/dataset.h"
#include "cifar/io/weights_normalization.h"
#include "cifar/model/model_registry.h"

namespace cifar {
namespace fs = std::filesystem;
namespace {

std::string no_model(const std::string& source) {
  return fmt::format("weights file {} does not say which model it holds; pass --model ({})", source,
                     in_words(model_names()));
}

// "32 px only", "64 px or more": the sides a model takes.
std::string sizes_taken(const ModelEntry& entry) {
  return entry.any_image_size() ? fmt::format("{} px or more", entry.min_image_size)
                                : fmt::format("{} px only", entry.image_size);
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
          .why = fmt::format(
              "four float64 copies of {} state dict of {} values, and 16 MiB; weights of a "
              "larger model? pass its --model ({})",
              a_or_an(model_name), values, in_words(model_names()))};
}

// A FIFO or device is refused here, before anything waits on it; a missing
// file is left to the reader of its format, which says so.
bool is_checkpoint(const fs::path& path) {
  std::error_code ec;
  if (!fs::exists(path, ec)) return false;
  const std::string front = read_front(path, sizeof(kCheckpointMagic), "weights file");
  return front.size() == sizeof(kCheckpointMagic) &&
         std::memcmp(front.data(), kCheckpointMagic, sizeof(kCheckpointMagic)) == 0;
}

// The outputs of the model in `tensors`: the first dimension of its output
// layer (the tensors whose size changes with the class count); 0 when the
// file lacks them (the strict load then names what is missing).
int64_t head_size(const TensorMap& tensors, const std::string& model_name, ResNetStem stem) {
  const auto options = ModelOptions(model_name).stem(stem);
  const TensorMap a = model_state_dict(*make_model(ModelOptions(options).num_classes(1)));
  const TensorMap b = model_state_dict(*make_model(ModelOptions(options).num_classes(2)));
  for (const auto& [name, t] : a) {
    const auto it = tensors.find(name);
    if (t.sizes() == b.at(name).sizes() || it == tensors.end() || it->second.dim() == 0) continue;
    return it->second.size(0);
  }
  return 0;
}

// Names for outputs a file does not name: CIFAR-10's for ten, else numbered.
std::vector<std::string> unnamed_classes(int64_t n) {
  if (n == kCifar10Classes || n <= 0) return default_class_names();
  std::vector<std::string> names;
  for (int64_t c = 0; c < n; ++c) names.push_back(fmt::format("class_{}", c));
  return names;
}

// When the file's tensors do not fit the model built for its class list:
// throws naming the list if the output layer is what differs. The output
// layer's tensors are those that change with the class count.
void check_class_list(const TensorMap& tensors, const ImportedWeights& out,
                      const std::string& source) {
  const auto n = static_cast<int64_t>(out.class_names.size());
  const auto options = ModelOptions(out.model_name).stem(out.stem);
  const TensorMap a = model_state_dict(*make_model(ModelOptions(options).num_classes(n)));
  const TensorMap b = model_state_dict(*make_model(ModelOptions(options).num_classes(n + 1)));
  for (const auto& [name, t] : a) {
    const auto it = tensors.find(name);
    if (t.sizes() == b.at(name).sizes() || it == tensors.end() || it->second.dim() == 0) continue;
    if (it->second.size(0) != n) {
      throw std::runtime_error(fmt::format(
          "weights file {}: metadata 'classes' lists {} names, but the model in it has {} outputs "
          "({} is [{}]); the list must name every output, in order",
          source, n, it->second.size(0), name, fmt::join(it->second.sizes(), ", ")));
    }
  }
}

// When the tensors fit the model with the other ResNet stem, the stem is
// the mismatch: the end of the error, naming where the stem used came from.
std::string stem_hint(const TensorMap& tensors, const ImportedWeights& out,
                      const WeightsOptions& options, const WeightsMetadata& meta) {
  if (!model_entry(out.model_name).has_stem) return "";
  const ResNetStem other =
      out.stem == ResNetStem::kCifar ? ResNetStem::kImageNet : ResNetStem::kCifar;
  try {
    apply_weights(*make_model(ModelOptions(out.model_name)
                                  .num_classes(static_cast<int64_t>(out.class_names.size()))
                                  .stem(other)),
                  tensors, out.model_name, "");
  } catch (const std::runtime_error&) {
    return "";  // not the stem, or not only
  }
  const std::string is = fmt::format("; the file is a resnet18 with the {} stem", to_string(other));
  if (options.stem) {
    return fmt::format(
        "{}{}, and --stem {} was given: pass --stem {}{}", is,
        meta.stem ? fmt::format(" (its metadata says {})", to_string(*meta.stem)) : "",
        to_string(out.stem), to_string(other), meta.stem == other ? " or leave --stem out" : "");
  }
  return fmt::format("{}, {}: pass --stem {}", is,
                     meta.stem ? "though its metadata says " + to_string(*meta.stem)
                               : "and its metadata does not say which",
                     to_string(other));
}

}  // namespace

std::string weights_path_problem(const fs::path& path, const WeightsOptions& options) {
  if (is_checkpoint(path)) return "";
  if (std::string problem = weights_format_problem(path); !problem.empty()) return problem;
  // A missing or unreadable file is that (std::runtime_error), and a file of
  // another format is that, before any question of its model.
  check_readable_file(path, "weights file");
  if (std::string problem = weights_content_problem(path); !problem.empty()) return problem;
  if (weights_format(path) == WeightsFormat::kTorch && !options.model)
    return no_model(path.string());
  return "";
}

WeightsContents read_weights_contents(const fs::path& path, const WeightsOptions& options) {
  if (std::string problem = weights_path_problem(path, options); !problem.empty()) {
    throw std::invalid_argument(problem);
  }
  const std::string source = path.string();
  if (is_checkpoint(path)) {
    LoadedCheckpoint c = load_checkpoint(path);
    return {.tensors = model_state_dict(*c.model),
            .meta = {.model = c.info.model,
                     .stem = parse_stem(c.info.stem),
                     .normalization = c.info.normalization,
                     .class_names = c.info.class_names,
                     .dataset = c.info.dataset,
                     // As cifar-train's weights files: the default side left out.
                     .image_size = c.info.image.image_size == kCifarImageSize
                                       ? std::nullopt
                                       : std::optional(c.info.image.image_size),
                     .prep = c.info.prep,
                     .from_cifar_train = true},
            .says = "the checkpoint's header",
            .classes_field = "header field 'class_names'",
            .tta = c.info.tta};
  }
  pickle::Limits limits;
  if (weights_format(path) == WeightsFormat::kTorch) {  // options.model: weights_path_problem
    limits = torch_file_limits(*options.model, options.stem.value_or(ResNetStem::kCifar));
  }
  WeightsFile file = read_weights(path, limits);
  return {.tensors = std::move(file.tensors),
          .meta = parse_weights_metadata(file.metadata, source, options.normalization.has_value())};
}

std::string weights_contents_problem(const WeightsContents& contents, const WeightsOptions& options,
                                     const fs::path& path) {
  const std::optional<std::string>& name = options.model ? options.model : contents.meta.model;
  if (!name) return no_model(path.string());
  if (std::ranges::find(model_names(), *name) == model_names().end()) {
    if (options.model)
      return fmt::format("unknown model '{}': choose {}", *name, in_words(model_names()));
    return fmt::format(
        "weights file {}: its metadata names model '{}', which cifar-train does not have ({}); "
        "if the weights are one of those, name it with --model",
        path.string(), *name, in_words(model_names()));
  }
  if (const auto& entry = model_entry(*name);
      options.images.image_size && !entry.takes_image_size(*options.images.image_size)) {
    return fmt::format("--image-size {}: {} takes images of {}", *options.images.image_size, *name,
                       sizes_taken(entry));
  }
  return "";
}

ImportedWeights import_weights(const fs::path& path, const WeightsOptions& options) {
  return import_weights(read_weights_contents(path, options), options, path);
}

ImportedWeights import_weights(WeightsContents contents, const WeightsOptions& options,
                               const fs::path& path) {
  if (std::string problem = weights_contents_problem(contents, options, path); !problem.empty()) {
    throw std::invalid_argument(problem);
  }
  const std::string source = path.string();
  const auto& [tensors, meta, says, classes_field, tta] = contents;
  ImportedWeights out;
  out.model_name = options.model ? *options.model : *meta.model;
  out.stem = options.stem.value_or(meta.stem.value_or(ResNetStem::kCifar));
  out.class_names_known = meta.class_names.has_value();
  out.class_names = out.class_names_known
                        ? *meta.class_names
                        : unnamed_classes(head_size(tensors, out.model_name, out.stem));
  out.dataset = meta.dataset.value_or(dataset_kinds().front().name);
  const ImagesTaken images = images_taken(meta, options.images, source, says);
  if (const auto& entry = model_entry(out.model_name); !entry.takes_image_size(images.image_size)) {
    throw std::runtime_error(fmt::format(
        "weights file {}: {} records image_size {}, but {} takes images of {}: give --image-size "
        "to take the weights at a size it takes",
        source, says, images.image_size, out.model_name, sizes_taken(entry)));
  }
  out.image.image_size = images.image_size;
  out.prep = images.prep;
  out.image_note = images.note;
  out.image_size_recorded = meta.image_size.has_value();
  out.tta = contents.tta;
  const ChosenNormalization chosen =
      choose_normalization(options.normalization, meta.normalization, source, says);
  out.normalization = chosen.normalization;
  out.normalization_note = chosen.note;
  out.normalization_known = chosen.known;
  if (const auto n = static_cast<int64_t>(out.class_names.size());
      options.num_classes && n != *options.num_classes) {
    throw std::runtime_error(fmt::format(
        "weights file {}: {} {} {}{}, but the data has {} classes: {}-class model can "
        "predict, not be evaluated or trained on this data",
        source,
        out.class_names_known ? fmt::format("{} lists", classes_field) : "its output layer has", n,
        out.class_names_known ? "names" : "outputs",
        n <= 12 ? fmt::format(" ({})", fmt::join(out.class_names, ", ")) : std::string(),
        *options.num_classes, a_or_an(std::to_string(n))));
  }
  out.model = make_model(ModelOptions(out.model_name)
                             .num_classes(static_cast<int64_t>(out.class_names.size()))
                             .stem(out.stem));
  try {
    apply_weights(*out.model, tensors, out.model_name, source);
  } catch (const std::runtime_error& e) {
    if (meta.class_names) check_class_list(tensors, out, source);
    if (const std::string hint = stem_hint(tensors, out, options, meta); !hint.empty()) {
      throw std::runtime_error(e.what() + hint);
    }
    throw;
  }
  out.model->eval();
  return out;
}

CheckpointInfo weights_info(const ImportedWeights& weights) {
  CheckpointInfo info;
  info.model = weights.model_name;
  info.stem = to_string(weights.stem);
  info.class_names = weights.class_names;
  info.num_classes = static_cast<int64_t>(weights.class_names.size());
  info.dataset = weights.dataset;
  info.image = weights.image;
  info.prep = weights.prep;
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
