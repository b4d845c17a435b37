// model_registry.cpp: the table of models, and the factory that reads it.
#include "cifar/model/model_registry.h"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>

#include "cifar/core/errors.h"
#include "cifar/model/airbench.h"

namespace cifar {
namespace {

Classifier build_net(const ModelOptions& o) {
  return Net(o.num_classes()).ptr();
}
Classifier build_resnet18(const ModelOptions& o) {
  return ResNet(std::vector<int64_t>{2, 2, 2, 2}, o.num_classes(), o.stem()).ptr();
}
Classifier build_airbench94(const ModelOptions& o) {
  return Airbench94(o.num_classes()).ptr();
}

}  // namespace

const std::vector<ModelEntry>& model_registry() {
  // One line per model.
  static const std::vector<ModelEntry> entries{
      {.name = "net",
       .image_side = NetImpl::kImageSide,
       .head = "fc3",
       .cpu_bf16_slow = true,
       .build = build_net},
      {.name = "resnet18", .has_stem = true, .head = "fc", .build = build_resnet18},
      {.name = "airbench94",
       .min_image_side = Airbench94Impl::kMinImageSide,
       .head = "head",
       .build = build_airbench94},
  };
  return entries;
}

bool is_head_tensor(const ModelEntry& entry, const std::string& tensor) {
  return tensor.starts_with(entry.head + ".");
}

const ModelEntry& model_entry(const std::string& name) {
  const auto& entries = model_registry();
  const auto it = std::ranges::find(entries, name, &ModelEntry::name);
  if (it == entries.end()) {
    throw UsageError(
        fmt::format("unknown model '{}': choose one of {}", name, fmt::join(model_names(), ", ")));
  }
  return *it;
}

const std::vector<std::string>& model_names() {
  static const std::vector<std::string> names = [] {
    std::vector<std::string> out;
    for (const auto& e : model_registry()) out.push_back(e.name);
    return out;
  }();
  return names;
}

void check_model_name(const std::string& name) {
  model_entry(name);
}

Classifier make_model(const ModelOptions& options) {
  TORCH_CHECK(options.num_classes() > 0, "num_classes must be positive, got ",
              options.num_classes());
  return model_entry(options.name()).build(options);
}

}  // namespace cifar
