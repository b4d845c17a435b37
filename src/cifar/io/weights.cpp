// weights.cpp: reading, applying and exporting weights files (see weights.h).
#include "cifar/io/weights.h"

#include "cifar/core/version.h"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <charconv>
#include <cmath>
#include <nlohmann/json.hpp>
#include <sstream>

#include "cifar/core/errors.h"
#include "cifar/formats/torch_pickle.h"

namespace cifar {
namespace fs = std::filesystem;
using nlohmann::json;

namespace {

std::string extension_of(const fs::path& path) {
  std::string ext = path.extension().string();
  std::transform(ext.begin(), ext.end(), ext.begin(),
                 [](unsigned char c) { return std::tolower(c); });
  return ext;
}

[[noreturn]] void unknown_extension(const fs::path& path) {
  throw UsageError(
      fmt::format("weights file {}: unknown extension '{}'; use .safetensors, .pt or .pth",
                  path.string(), path.extension().string()));
}

// Removes a prefix that every name carries (DataParallel's "module.",
// torch.compile's "_orig_mod.").
TensorMap strip_common_prefix(const TensorMap& tensors) {
  for (const std::string prefix : {"module.", "_orig_mod."}) {
    if (!tensors.empty() && std::all_of(tensors.begin(), tensors.end(), [&](const auto& kv) {
          return kv.first.starts_with(prefix);
        })) {
      TensorMap out;
      for (const auto& [name, t] : tensors) out[name.substr(prefix.size())] = t;
      return strip_common_prefix(out);
    }
  }
  return tensors;
}

std::string shape_text(c10::IntArrayRef sizes) {
  return fmt::format("[{}]", fmt::join(sizes, ", "));
}

bool has_shape(const TensorMap& m, const std::string& name, std::vector<int64_t> shape) {
  const auto it = m.find(name);
  return it != m.end() && it->second.sizes().vec() == shape;
}

std::array<double, 3> parse_triple(const std::string& text, const std::string& key,
                                   const std::string& source) {
  const json j = json::parse(text, nullptr, /*allow_exceptions=*/false);
  if (!j.is_array() || j.size() != 3 ||
      !std::all_of(j.begin(), j.end(), [](const json& v) { return v.is_number(); })) {
    throw std::runtime_error(
        fmt::format("weights file {}: metadata '{}' is '{}', not a JSON array of 3 numbers", source,
                    key, text));
  }
  return {j[0].get<double>(), j[1].get<double>(), j[2].get<double>()};
}

}  // namespace

WeightsFile read_weights(const fs::path& path) {
  const std::string ext = extension_of(path);
  if (ext == ".safetensors") {
    auto file = read_safetensors(path);
    return {std::move(file.tensors), std::move(file.metadata)};
  }
  if (ext == ".pt" || ext == ".pth") return {read_torch_state_dict(path), {}};
  unknown_extension(path);
}

TensorMap model_state_dict(ClassifierImpl& model) {
  TensorMap out;
  for (const auto& p : model.named_parameters(/*recurse=*/true)) out[p.key()] = p.value();
  for (const auto& b : model.named_buffers(/*recurse=*/true)) out[b.key()] = b.value();
  return out;
}

void apply_weights(ClassifierImpl& model, const TensorMap& file_tensors,
                   const std::string& model_name, const std::string& source) {
  const TensorMap tensors = strip_common_prefix(file_tensors);
  TensorMap target = model_state_dict(model);
  std::vector<std::string> missing, unexpected, misshapen;
  for (const auto& [name, t] : target) {
    const auto it = tensors.find(name);
    if (it == tensors.end()) {
      missing.push_back(name);
    } else if (it->second.sizes() != t.sizes()) {
      misshapen.push_back(fmt::format("{} is {} in the file, {} in the model", name,
                                      shape_text(it->second.sizes()), shape_text(t.sizes())));
    }
  }
  for (const auto& [name, t] : tensors) {
    if (!target.contains(name)) unexpected.push_back(name);
  }
  if (!missing.empty() || !unexpected.empty() || !misshapen.empty()) {
    std::string hint;
    if (has_shape(tensors, "conv1.weight", {64, 3, 7, 7}) &&
        has_shape(tensors, "fc.weight", {1000, 512})) {
      hint =
          "; this is a torchvision ResNet-18 for ImageNet (7x7 stem, 1000 classes): cifar-train's "
          "resnet18 has 10 classes, so replace its fc layer with a 10-class one in Python "
          "(and pass --stem imagenet for its 7x7 stem)";
    } else if (missing.size() == target.size()) {
      hint = fmt::format("; no name matches: is it a {} model?", model_name);
    }
    const auto list = [](const std::vector<std::string>& v) {
      return v.size() <= 12 ? fmt::format("{}", fmt::join(v, ", "))
                            : fmt::format("{}, ... ({} in all)",
                                          fmt::join(v.begin(), v.begin() + 12, ", "), v.size());
    };
    std::vector<std::string> parts;
    if (!missing.empty()) parts.push_back(fmt::format("missing: {}", list(missing)));
    if (!unexpected.empty()) parts.push_back(fmt::format("unexpected: {}", list(unexpected)));
    if (!misshapen.empty()) parts.push_back(fmt::format("wrong shape: {}", list(misshapen)));
    throw std::runtime_error(fmt::format("weights file {} does not fit a {} model: {}{}", source,
                                         model_name, fmt::join(parts, "; "), hint));
  }
  torch::NoGradGuard no_grad;
  for (auto& [name, t] : target) t.copy_(tensors.at(name));
}

LoadedWeights load_weights(const fs::path& path, const WeightsOptions& options) {
  WeightsFile file = read_weights(path);
  const std::string source = path.string();
  const auto meta = [&](const char* key) -> std::optional<std::string> {
    const auto it = file.metadata.find(key);
    return it == file.metadata.end() ? std::nullopt : std::optional(it->second);
  };
  LoadedWeights out;
  CheckpointInfo& info = out.info;
  if (options.model) {
    info.model = *options.model;
  } else if (auto m = meta("model")) {
    info.model = *m;
  } else {
    throw UsageError(
        fmt::format("weights file {} does not say which model it holds; pass --model ({})", source,
                    fmt::join(model_names(), " or ")));
  }
  check_model_name(info.model);
  info.stem = options.stem ? *options.stem : meta("stem").value_or("cifar");
  info.class_names = default_class_names();
  if (auto classes = meta("classes")) {
    const json j = json::parse(*classes, nullptr, false);
    if (!j.is_array() || j.empty() ||
        !std::all_of(j.begin(), j.end(), [](const json& v) { return v.is_string(); })) {
      throw std::runtime_error(
          fmt::format("weights file {}: metadata 'classes' is not a JSON array of names", source));
    }
    info.class_names = j.get<std::vector<std::string>>();
  }
  info.num_classes = static_cast<int64_t>(info.class_names.size());
  const auto mean = meta("mean");
  const auto stdev = meta("std");
  if (options.normalization) {
    info.normalization = *options.normalization;
    out.normalization_note = "as given on the command line";
  } else if (mean && stdev) {
    info.normalization.mean = parse_triple(*mean, "mean", source);
    info.normalization.std = parse_triple(*stdev, "std", source);
    out.normalization_note = "from the file's metadata";
  } else {
    out.normalization_note = "the training default (the file does not say)";
  }
  for (double s : info.normalization.std) {
    if (!(s > 0))
      throw std::runtime_error(fmt::format("weights file {}: a std is not positive", source));
  }
  info.libtorch_version = libtorch_version();
  out.model = make_model(info.model_options());
  apply_weights(*out.model, file.tensors, info.model, source);
  out.model->eval();
  return out;
}

LoadedCheckpoint weights_as_checkpoint(LoadedWeights weights) {
  LoadedCheckpoint c;
  c.info = std::move(weights.info);
  c.model = std::move(weights.model);
  c.header.info = c.info;
  return c;
}

StringMap weights_metadata(const CheckpointInfo& info) {
  return {{"format", "pt"},
          {"model", info.model},
          {"stem", info.stem},
          {"mean", json(info.normalization.mean).dump()},
          {"std", json(info.normalization.std).dump()},
          {"classes", json(info.class_names).dump()},
          {"cifar_train_version", tool_version()}};
}

void export_weights(const CheckpointInfo& info, ClassifierImpl& model, const fs::path& path) {
  const std::string ext = extension_of(path);
  if (ext == ".safetensors") {
    write_safetensors(path, model_state_dict(model), weights_metadata(info));
  } else if (ext == ".pt" || ext == ".pth") {
    write_torch_state_dict(path, model_state_dict(model));
  } else {
    unknown_extension(path);
  }
}

void export_weights(const LoadedCheckpoint& checkpoint, const fs::path& path) {
  export_weights(checkpoint.info, *checkpoint.model, path);
}

fs::path write_run_weights(const fs::path& run_dir, const CheckpointInfo& info,
                           ClassifierImpl& model) {
  const fs::path path = run_dir / "model.safetensors";
  export_weights(info, model, path);
  return path;
}

namespace {
// "a,b,c" or "a b c" -> three finite numbers, or UsageError naming `flag`.
std::array<double, 3> three_numbers(const std::string& flag, const std::string& text) {
  std::string spaced = text;
  std::replace(spaced.begin(), spaced.end(), ',', ' ');
  std::istringstream in(spaced);
  std::vector<double> values;
  for (std::string word; in >> word;) {
    double v = 0;
    const auto [end, ec] = std::from_chars(word.data(), word.data() + word.size(), v);
    if (ec != std::errc() || end != word.data() + word.size() || !std::isfinite(v)) {
      values.clear();
      break;
    }
    values.push_back(v);
  }
  if (values.size() != 3) {
    throw UsageError(fmt::format(
        "{} takes three numbers (red, green, blue), e.g. {} 0.4914,0.4822,0.4465; got '{}'", flag,
        flag, text));
  }
  return {values[0], values[1], values[2]};
}
}  // namespace

std::optional<Normalization> normalization_from_flags(const std::string& mean,
                                                      const std::string& std) {
  if (mean.empty() && std.empty()) return std::nullopt;
  if (mean.empty() || std.empty()) {
    throw UsageError(fmt::format("--mean and --std go together: give {} too",
                                 mean.empty() ? "--mean" : "--std"));
  }
  Normalization n{three_numbers("--mean", mean), three_numbers("--std", std)};
  for (double s : n.std) {
    if (s <= 0) throw UsageError(fmt::format("--std values must be > 0, got '{}'", std));
  }
  return n;
}

}  // namespace cifar
