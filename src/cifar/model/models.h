// models.h: the classifiers cifar-train knows, built by name from one factory.
//
//   net       the PyTorch CIFAR-10 tutorial's small CNN (62,006 parameters)
//   resnet18  BasicBlock ResNet-18 with torchvision's parameter names, so a
//             state dict exchanges with Python; a 32x32 stem by default
//             (11,173,962 parameters) or torchvision's ImageNet stem.
//   airbench94 the CIFAR-10 speedrun's network (airbench.h): whitening conv,
//             three conv groups, GELU; 1,972,792 parameters, some frozen.
//
// Submodules are registered under the names Python uses (conv1.weight,
// layer2.0.downsample.0.weight, fc.bias, ...).
#pragma once

#include <torch/torch.h>

#include <array>
#include <memory>
#include <string>
#include <vector>

#include "cifar/core/enum_names.h"

namespace cifar {

// Every model maps (N, 3, S, S) float images to (N, num_classes) logits, at
// the sides S its registry entry allows (model_registry.h).
class ClassifierImpl : public torch::nn::Module {
 public:
  virtual torch::Tensor forward(torch::Tensor x) = 0;
};
using Classifier = std::shared_ptr<ClassifierImpl>;

enum class ResNetStem { kCifar, kImageNet };
// --stem's names (config/ reads them; parse_stem, below, for files).
inline constexpr std::array<EnumName<ResNetStem>, 2> kStemNames{
    {{ResNetStem::kCifar, "cifar"}, {ResNetStem::kImageNet, "imagenet"}}};

struct ModelOptions {
  ModelOptions(std::string name = "net") : name_(std::move(name)) {}
  TORCH_ARG(std::string, name);
  TORCH_ARG(int64_t, num_classes) = 10;
  // ResNet only: kCifar is a 3x3 stride-1 conv and no max-pool (for 32x32
  // images); kImageNet is torchvision's 7x7 stride-2 conv and 3x3 max-pool.
  TORCH_ARG(ResNetStem, stem) = ResNetStem::kCifar;
};

// --- The tutorial's Net ------------------------------------------------------
class NetImpl : public ClassifierImpl {
 public:
  // The only image side it takes: its fc1 is sized for the 16 maps of 5x5
  // that two 5x5 convolutions and 2x2 pools leave of a 32x32 image.
  static constexpr int64_t kImageSize = 32;
  static constexpr int64_t kMapSide = ((kImageSize - 4) / 2 - 4) / 2;  // 5
  explicit NetImpl(int64_t num_classes = 10);
  torch::Tensor forward(torch::Tensor x) override;

 private:
  torch::nn::Conv2d conv1{nullptr}, conv2{nullptr};
  torch::nn::Linear fc1{nullptr}, fc2{nullptr}, fc3{nullptr};
};
TORCH_MODULE(Net);

// --- ResNet-18 ---------------------------------------------------------------
class BasicBlockImpl : public torch::nn::Module {
 public:
  BasicBlockImpl(int64_t in_planes, int64_t planes, int64_t stride);
  torch::Tensor forward(torch::Tensor x);

 private:
  torch::nn::Conv2d conv1{nullptr}, conv2{nullptr};
  torch::nn::BatchNorm2d bn1{nullptr}, bn2{nullptr};
  torch::nn::Sequential downsample{nullptr};  // conv 1x1 + bn, when the shape changes
};
TORCH_MODULE(BasicBlock);

class ResNetImpl : public ClassifierImpl {
 public:
  // blocks: BasicBlocks per stage, {2, 2, 2, 2} for ResNet-18.
  ResNetImpl(std::vector<int64_t> blocks, int64_t num_classes, ResNetStem stem);
  torch::Tensor forward(torch::Tensor x) override;

 private:
  torch::nn::Sequential make_layer(int64_t& in_planes, int64_t planes, int64_t blocks,
                                   int64_t stride);

  ResNetStem stem_;
  torch::nn::Conv2d conv1{nullptr};
  torch::nn::BatchNorm2d bn1{nullptr};
  torch::nn::Sequential layer1{nullptr}, layer2{nullptr}, layer3{nullptr}, layer4{nullptr};
  torch::nn::Linear fc{nullptr};
};
TORCH_MODULE(ResNet);

// The names make_model() accepts, in the order --help lists them
// (model_registry.h, which defines these three from its table).
const std::vector<std::string>& model_names();

// Throws std::runtime_error, listing the known names, unless `name` is one
// of them: for a name read from a file (config/ refuses the user's --model).
void check_model_name(const std::string& name);

// Builds a freshly initialised model; an unknown name is an error listing the
// known ones.
Classifier make_model(const ModelOptions& options);

int64_t count_parameters(const torch::nn::Module& model);

// "cifar" or "imagenet", as --stem, config files, checkpoints and weights
// metadata write it; parse_stem reads it back (std::runtime_error for
// anything else: a file's text, as config/ refuses the user's --stem).
ResNetStem parse_stem(const std::string& text);
std::string to_string(ResNetStem stem);

// 4-D parameters in channels-last layout.
void to_channels_last(torch::nn::Module& model);

}  // namespace cifar
