// models.cpp: Net and ResNet-18, initialised as PyTorch initialises them.
#include "cifar/model/models.h"

#include <fmt/format.h>

#include "cifar/core/enum_names.h"
#include "cifar/model/max_pool2.h"

namespace cifar {
namespace nn = torch::nn;
namespace F = torch::nn::functional;

// --- Net ---------------------------------------------------------------------

NetImpl::NetImpl(int64_t num_classes)
    : conv1(register_module("conv1", nn::Conv2d(nn::Conv2dOptions(3, 6, 5)))),
      conv2(register_module("conv2", nn::Conv2d(nn::Conv2dOptions(6, 16, 5)))),
      fc1(register_module("fc1", nn::Linear(16 * kMapSide * kMapSide, 120))),
      fc2(register_module("fc2", nn::Linear(120, 84))),
      fc3(register_module("fc3", nn::Linear(84, num_classes))) {}

torch::Tensor NetImpl::forward(torch::Tensor x) {
  // x: (N, 3, 32, 32) (kImageSize). ReLU and max-pooling commute (ReLU is monotonic), so
  // pool(relu(x)), as the tutorial writes it, is relu(pool(x)): one fused
  // pass on the CPU (max_pool2.h), with the same values and gradients.
  x = max_pool2_relu(conv1(x));  // (N, 6, 14, 14)
  x = max_pool2_relu(conv2(x));  // (N, 16, 5, 5)
  x = torch::flatten(x, 1);      // (N, 400)
  x = torch::relu(fc1(x));       // (N, 120)
  x = torch::relu(fc2(x));       // (N, 84)
  return fc3(x);                 // (N, 10)
}

// --- ResNet-18 ---------------------------------------------------------------

namespace {
nn::Conv2d conv3x3(int64_t in, int64_t out, int64_t stride) {
  return nn::Conv2d(nn::Conv2dOptions(in, out, 3).stride(stride).padding(1).bias(false));
}
}  // namespace

BasicBlockImpl::BasicBlockImpl(int64_t in_planes, int64_t planes, int64_t stride)
    : conv1(register_module("conv1", conv3x3(in_planes, planes, stride))),
      conv2(register_module("conv2", conv3x3(planes, planes, 1))),
      bn1(register_module("bn1", nn::BatchNorm2d(planes))),
      bn2(register_module("bn2", nn::BatchNorm2d(planes))) {
  if (stride != 1 || in_planes != planes) {
    downsample = register_module(
        "downsample",
        nn::Sequential(
            nn::Conv2d(nn::Conv2dOptions(in_planes, planes, 1).stride(stride).bias(false)),
            nn::BatchNorm2d(planes)));
  }
}

torch::Tensor BasicBlockImpl::forward(torch::Tensor x) {
  auto identity = downsample ? downsample->forward(x) : x;
  auto out = torch::relu(bn1(conv1(x)));
  out = bn2(conv2(out));
  return torch::relu(out + identity);
}

ResNetImpl::ResNetImpl(std::vector<int64_t> blocks, int64_t num_classes, ResNetStem stem)
    : stem_(stem) {
  TORCH_CHECK(blocks.size() == 4, "ResNet needs 4 stages, got ", blocks.size());
  conv1 = register_module(
      "conv1", stem == ResNetStem::kCifar
                   ? nn::Conv2d(nn::Conv2dOptions(3, 64, 3).stride(1).padding(1).bias(false))
                   : nn::Conv2d(nn::Conv2dOptions(3, 64, 7).stride(2).padding(3).bias(false)));
  bn1 = register_module("bn1", nn::BatchNorm2d(64));
  int64_t in_planes = 64;
  layer1 = register_module("layer1", make_layer(in_planes, 64, blocks[0], 1));
  layer2 = register_module("layer2", make_layer(in_planes, 128, blocks[1], 2));
  layer3 = register_module("layer3", make_layer(in_planes, 256, blocks[2], 2));
  layer4 = register_module("layer4", make_layer(in_planes, 512, blocks[3], 2));
  fc = register_module("fc", nn::Linear(512, num_classes));

  // torchvision's initialisation: Kaiming-normal convs, unit-gamma BN.
  for (auto& module : modules(/*include_self=*/false)) {
    if (auto* conv = module->as<nn::Conv2d>()) {
      nn::init::kaiming_normal_(conv->weight, 0.0, torch::kFanOut, torch::kReLU);
    } else if (auto* bn = module->as<nn::BatchNorm2d>()) {
      nn::init::ones_(bn->weight);
      nn::init::zeros_(bn->bias);
    }
  }
}

nn::Sequential ResNetImpl::make_layer(int64_t& in_planes, int64_t planes, int64_t blocks,
                                      int64_t stride) {
  nn::Sequential layer;
  for (int64_t i = 0; i < blocks; ++i) {
    layer->push_back(BasicBlock(in_planes, planes, i == 0 ? stride : 1));
    in_planes = planes;
  }
  return layer;
}

torch::Tensor ResNetImpl::forward(torch::Tensor x) {
  // x: (N, 3, S, S)
  x = torch::relu(bn1(conv1(x)));  // (N, 64, S, S); ImageNet stem: (N, 64, S/2, S/2)
  if (stem_ == ResNetStem::kImageNet) {
    x = F::max_pool2d(x, F::MaxPool2dFuncOptions(3).stride(2).padding(1));  // (N, 64, 8, 8)
  }
  x = layer4->forward(
      layer3->forward(layer2->forward(layer1->forward(x))));  // (N, 512, 4, 4) with the CIFAR stem
  x = F::adaptive_avg_pool2d(x, F::AdaptiveAvgPool2dFuncOptions(1));  // (N, 512, 1, 1)
  return fc(torch::flatten(x, 1));                                    // (N, 10)
}

// --- Helpers -----------------------------------------------------------------

int64_t count_parameters(const torch::nn::Module& model) {
  int64_t n = 0;
  for (const auto& p : model.parameters()) n += p.numel();
  return n;
}

ResNetStem parse_stem(const std::string& text) {
  return parse_name(kStemNames, "ResNet stem", text);
}

std::string to_string(ResNetStem stem) {
  return name_of(kStemNames, stem);
}

void to_channels_last(torch::nn::Module& model) {
  torch::NoGradGuard no_grad;
  for (auto& p : model.parameters()) {
    if (p.dim() == 4) p.set_data(p.data().contiguous(torch::MemoryFormat::ChannelsLast));
  }
}

}  // namespace cifar
