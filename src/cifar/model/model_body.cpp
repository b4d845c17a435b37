// model_body.cpp: a model's body apart from its head: copied, frozen, its statistics' modules.
#include "cifar/model/model_body.h"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <stdexcept>
#include <string>

#include "cifar/model/state_dict.h"

namespace cifar {

void copy_body(ClassifierImpl& loaded, ClassifierImpl& fresh, const ModelEntry& entry) {
  const TensorMap from = model_state_dict(loaded);
  TensorMap to = model_state_dict(fresh);
  torch::NoGradGuard no_grad;
  for (auto& [name, t] : to) {
    if (is_head_tensor(entry, name)) continue;
    const torch::Tensor& source = from.at(name);
    if (source.sizes() != t.sizes()) {
      throw std::logic_error(fmt::format("body tensor {} is [{}] loaded, [{}] in the new model",
                                         name, fmt::join(source.sizes(), ", "),
                                         fmt::join(t.sizes(), ", ")));
    }
    t.copy_(source);
  }
}

void freeze_body(ClassifierImpl& model, const ModelEntry& entry) {
  for (const auto& item : model.named_parameters()) {
    if (!is_head_tensor(entry, item.key())) item.value().requires_grad_(false);
  }
}

std::vector<std::shared_ptr<torch::nn::Module>> body_statistics_modules(ClassifierImpl& model,
                                                                        const ModelEntry& entry) {
  std::vector<std::shared_ptr<torch::nn::Module>> out;
  for (const auto& item : model.named_modules("", /*include_self=*/false)) {
    const bool in_head = item.key() == entry.head || item.key().starts_with(entry.head + ".");
    if (!in_head && !item.value()->named_buffers(/*recurse=*/false).is_empty()) {
      out.push_back(item.value());
    }
  }
  return out;
}

std::vector<std::string> trainable_from_names(ClassifierImpl& model) {
  std::vector<std::string> out;
  for (const auto& item : model.named_modules("", /*include_self=*/false)) {
    const std::string& key = item.key();
    if (std::count(key.begin(), key.end(), '.') <= 1 && !item.value()->parameters().empty()) {
      out.push_back(key);
    }
  }
  return out;
}

std::vector<std::shared_ptr<torch::nn::Module>> freeze_before(ClassifierImpl& model,
                                                              const std::string& first_trained) {
  const std::vector<std::string> names = trainable_from_names(model);
  if (std::ranges::find(names, first_trained) == names.end()) {
    throw std::logic_error("freeze_before: the model has no module " + first_trained);
  }
  std::vector<std::shared_ptr<torch::nn::Module>> held;
  for (const auto& item : model.named_modules("", /*include_self=*/false)) {
    const std::string& key = item.key();
    if (key == first_trained) break;
    if (first_trained.starts_with(key + ".")) continue;  // holds it: a container, read on
    for (const auto& p : item.value()->parameters(/*recurse=*/false)) p.requires_grad_(false);
    if (!item.value()->named_buffers(/*recurse=*/false).is_empty()) held.push_back(item.value());
  }
  return held;
}

int64_t set_batch_norm_momentum(ClassifierImpl& model, double momentum) {
  int64_t count = 0;
  for (const auto& m : model.modules(/*include_self=*/false)) {
    if (auto* bn = m->as<torch::nn::BatchNorm2d>()) {
      bn->options.momentum(momentum);
      ++count;
    }
  }
  return count;
}

}  // namespace cifar
