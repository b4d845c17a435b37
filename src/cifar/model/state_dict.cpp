// state_dict.cpp: matching a map of named tensors to a model (see state_dict.h).
#include "cifar/model/state_dict.h"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <set>
#include <vector>

#include "cifar/core/names.h"

namespace cifar {
namespace {

// The buffer PyTorch 0.4.1 added to batch norms: files saved before it lack
// it, and PyTorch's BatchNorm loads them with the count at 0, as here.
constexpr std::string_view kBatchCount = ".num_batches_tracked";

std::string shape_text(c10::IntArrayRef sizes) {
  return fmt::format("[{}]", fmt::join(sizes, ", "));
}

bool has_shape(const TensorMap& m, const std::string& name, std::vector<int64_t> shape) {
  const auto it = m.find(name);
  return it != m.end() && it->second.sizes().vec() == shape;
}

// The names of `tensors`, less batch norms' counts (files of PyTorch before
// 0.4.1 have none).
std::set<std::string> names_of(const TensorMap& tensors) {
  std::set<std::string> names;
  for (const auto& [name, t] : tensors) {
    if (!name.ends_with(kBatchCount)) names.insert(name);
  }
  return names;
}

// The model whose state dict has exactly the names of `tensors` (its shapes
// aside: a head for other classes, another stem), or "".
std::string model_with_names(const TensorMap& tensors) {
  // Each model's names, built once (a model's names depend on no option).
  static const std::vector<std::pair<std::string, std::set<std::string>>> kNames = [] {
    std::vector<std::pair<std::string, std::set<std::string>>> out;
    for (const std::string& model : model_names()) {
      out.emplace_back(model, names_of(model_state_dict(*make_model(ModelOptions(model)))));
    }
    return out;
  }();
  const std::set<std::string> names = names_of(tensors);
  for (const auto& [model, its] : kNames) {
    if (its == names) return model;
  }
  return "";
}

// What the mismatch most likely is, as the end of the error message.
// `target` is the model's own state dict.
std::string mismatch_hint(const TensorMap& tensors, const TensorMap& target, bool nothing_matches,
                          const std::string& model_name) {
  const bool imagenet_resnet = has_shape(tensors, "conv1.weight", {64, 3, 7, 7}) &&
                               (tensors.contains("layer4.0.conv1.weight"));
  // ResNet-18 has two blocks a stage: a layerN.2 is ResNet-34's, -50's, ...
  const bool deeper = std::ranges::any_of(tensors, [](const auto& entry) {
    return entry.first.starts_with("layer1.2.") || entry.first.starts_with("layer3.2.");
  });
  if (imagenet_resnet && deeper) {
    return "; this is a deeper torchvision ResNet (it has a third block in a stage, layer1.2: "
           "ResNet-34, -50 or more), and the ResNet cifar-train builds is ResNet-18: convert "
           "torchvision.models.resnet18's weights instead";
  }
  const bool fits_imagenet_resnet18 =
      model_name == "resnet18" && has_shape(target, "conv1.weight", {64, 3, 7, 7});
  if (imagenet_resnet && has_shape(tensors, "fc.weight", {1000, 512}) && !fits_imagenet_resnet18) {
    return "; this is a torchvision ResNet-18 for ImageNet (7x7 stem, 1000 classes): pass "
           "--model resnet18 --stem imagenet (cifar-train --init-weights then starts a new head "
           "for the data's classes)";
  }
  if (const std::string other = model_with_names(tensors); !other.empty() && other != model_name) {
    return fmt::format("; its names are {} model's: pass --model {}", a_or_an(other), other);
  }
  if (nothing_matches && !tensors.empty()) {
    // A wrapper's attribute before every name ("model.conv1.weight" for a
    // module holding the model as self.model): the names match without it.
    const std::string& first = tensors.begin()->first;
    const std::string prefix = first.substr(0, first.find('.') + 1);
    const bool wrapped = !prefix.empty() && std::ranges::all_of(tensors, [&](const auto& kv) {
      return kv.first.starts_with(prefix);
    }) && std::ranges::any_of(tensors, [&](const auto& kv) {
      return target.contains(kv.first.substr(prefix.size()));
    });
    if (wrapped) {
      return fmt::format(
          "; every name starts with '{}', the attribute of a module that holds the model: save "
          "that attribute's state_dict() (e.g. torch.save(module.{}.state_dict(), path))",
          prefix, prefix.substr(0, prefix.size() - 1));
    }
    return fmt::format("; no name matches: is it {} model?", a_or_an(model_name));
  }
  return "";
}

// "a, b, c", or the first 12 and the count.
std::string name_list(const std::vector<std::string>& names) {
  if (names.size() <= 12) return fmt::format("{}", fmt::join(names, ", "));
  return fmt::format("{}, ... ({} in all)", fmt::join(names.begin(), names.begin() + 12, ", "),
                     names.size());
}

// Refuses values no trained model has: a floating-point parameter or buffer
// given as integers or booleans, or holding NaN or infinity (every output
// would be NaN). Names every such tensor.
void check_values(const TensorMap& target, const TensorMap& tensors, const std::string& source) {
  std::vector<std::string> not_float, not_finite;
  for (const auto& [name, t] : target) {
    if (!t.is_floating_point()) continue;  // num_batches_tracked
    const torch::Tensor& given = tensors.at(name);
    if (!given.is_floating_point()) {
      not_float.push_back(  // Python's name: int64, bool, ...
          fmt::format("{} ({})", name, c10::getDtypeNames(given.scalar_type()).first));
    } else if (const int64_t bad = given.numel() - torch::isfinite(given).sum().item<int64_t>();
               bad > 0) {
      not_finite.push_back(fmt::format("{} ({} of {})", name, bad, given.numel()));
    }
  }
  if (!not_float.empty()) {
    throw std::runtime_error(fmt::format(
        "weights file {}: tensors that must be floating point are not: {}; a model's weights are "
        "float32 (or float16, bfloat16, float64): the file is damaged or not a model's weights",
        source, name_list(not_float)));
  }
  if (!not_finite.empty()) {
    throw std::runtime_error(fmt::format(
        "weights file {}: tensors hold NaN or infinite values: {}; every prediction would be NaN: "
        "the training that wrote the file diverged, or the file is damaged; use an earlier "
        "checkpoint or weights file",
        source, name_list(not_finite)));
  }
}

}  // namespace

void check_weight_values(ClassifierImpl& model, const std::string& source) {
  const TensorMap tensors = model_state_dict(model);
  check_values(tensors, tensors, source);
}

TensorMap model_state_dict(ClassifierImpl& model) {
  TensorMap out;
  for (const auto& p : model.named_parameters(/*recurse=*/true)) out[p.key()] = p.value();
  for (const auto& b : model.named_buffers(/*recurse=*/true)) out[b.key()] = b.value();
  return out;
}

void apply_weights(ClassifierImpl& model, const TensorMap& tensors, const std::string& model_name,
                   const std::string& source) {
  TensorMap target = model_state_dict(model);
  std::vector<std::string> missing, unexpected, misshapen;
  for (const auto& [name, t] : target) {
    const auto it = tensors.find(name);
    if (it == tensors.end() && name.ends_with(kBatchCount)) continue;  // set to 0 below
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
    std::vector<std::string> parts;
    if (!missing.empty()) parts.push_back("missing: " + name_list(missing));
    if (!unexpected.empty()) parts.push_back("unexpected: " + name_list(unexpected));
    if (!misshapen.empty()) parts.push_back("wrong shape: " + name_list(misshapen));
    throw std::runtime_error(fmt::format(
        "weights file {} does not fit {} model: {}{}", source, a_or_an(model_name),
        fmt::join(parts, "; "),
        mismatch_hint(
            tensors, target,
            std::ranges::none_of(target, [&](const auto& t) { return tensors.contains(t.first); }),
            model_name)));
  }
  check_values(target, tensors, source);
  torch::NoGradGuard no_grad;
  for (auto& [name, t] : target) {
    const auto it = tensors.find(name);
    if (it != tensors.end()) {
      t.copy_(it->second);
    } else {
      t.zero_();  // a batch norm's count, absent from files of PyTorch before 0.4.1
    }
  }
}

}  // namespace cifar
