// efficientnet_lite.cpp: EfficientNet-Lite0 as efficientnet_lite_pytorch builds
// it (its BlockDecoder strings, lite0's width and depth 1.0, head and stem not
// scaled), initialised as PyTorch initialises its layers.
#include "cifar/model/efficientnet_lite.h"

#include <array>

namespace cifar {
namespace nn = torch::nn;
namespace F = torch::nn::functional;
namespace {

// efficientnet-lite0's stages: repeats, kernel, stride, expansion, in, out
// ('r1_k3_s11_e1_i32_o16', 'r2_k3_s22_e6_i16_o24', ...).
struct Stage {
  int64_t repeats, kernel, stride, expand, in, out;
};
constexpr std::array<Stage, 7> kStages{{{1, 3, 1, 1, 32, 16},
                                        {2, 3, 2, 6, 16, 24},
                                        {2, 5, 2, 6, 24, 40},
                                        {3, 3, 2, 6, 40, 80},
                                        {3, 5, 1, 6, 80, 112},
                                        {4, 5, 2, 6, 112, 192},
                                        {1, 3, 1, 6, 192, 320}}};
constexpr int64_t kBlocks = 16;
constexpr double kDropConnect = 0.2;
constexpr double kDropout = 0.2;
constexpr int64_t kStemChannels = 32, kHeadChannels = 1280;

nn::BatchNorm2d batch_norm(int64_t channels) {  // TensorFlow's momentum 0.99, eps 1e-3
  return nn::BatchNorm2d(nn::BatchNormOptions(channels).momentum(0.01).eps(1e-3));
}

// A bias-free convolution; stride 1 pads (k - 1) / 2 on each side, which is
// "same" padding; stride 2 pads in same_conv.
nn::Conv2d conv(int64_t in, int64_t out, int64_t kernel, int64_t stride, int64_t groups = 1) {
  return nn::Conv2d(nn::Conv2dOptions(in, out, kernel)
                        .stride(stride)
                        .padding(stride == 1 ? (kernel - 1) / 2 : 0)
                        .groups(groups)
                        .bias(false));
}

// TensorFlow's "same" padding for a stride-2 convolution: an output of
// ceil(side / 2), the padding split with the extra pixel after (right, bottom).
torch::Tensor same_conv(nn::Conv2d& layer, const torch::Tensor& x) {
  const auto& o = layer->options;
  if (o.stride()->at(0) == 1) return layer(x);
  const int64_t k = o.kernel_size()->at(0), s = o.stride()->at(0);
  const auto pad = [&](int64_t side) {
    return std::max<int64_t>(((side + s - 1) / s - 1) * s + k - side, 0);
  };
  const int64_t ph = pad(x.size(2)), pw = pad(x.size(3));
  return layer(F::pad(x, F::PadFuncOptions({pw / 2, pw - pw / 2, ph / 2, ph - ph / 2})));
}

torch::Tensor clamp6(const torch::Tensor& x) {  // ReLU6
  return torch::hardtanh(x, 0.0, 6.0);
}

// Stochastic depth as efficientnet_pytorch's drop_connect: each sample's
// branch kept with probability 1 - p, scaled by 1 / (1 - p).
torch::Tensor drop_connect(const torch::Tensor& x, double p) {
  const double keep = 1.0 - p;
  auto mask = torch::floor(keep + torch::rand({x.size(0), 1, 1, 1}, x.options()));
  return x / keep * mask;
}

}  // namespace

MBConvBlockImpl::MBConvBlockImpl(const MBConvSpec& spec) : spec_(spec) {
  const int64_t mid = spec.in * spec.expand;
  if (spec.expand != 1) {
    _expand_conv = register_module("_expand_conv", conv(spec.in, mid, 1, 1));
    _bn0 = register_module("_bn0", batch_norm(mid));
  }
  _depthwise_conv =
      register_module("_depthwise_conv", conv(mid, mid, spec.kernel, spec.stride, /*groups=*/mid));
  _bn1 = register_module("_bn1", batch_norm(mid));
  _project_conv = register_module("_project_conv", conv(mid, spec.out, 1, 1));
  _bn2 = register_module("_bn2", batch_norm(spec.out));
}

torch::Tensor MBConvBlockImpl::forward(torch::Tensor x) {
  // x: (N, in, H, W)
  torch::Tensor y = x;
  if (_expand_conv) y = clamp6(_bn0(_expand_conv(y)));  // (N, in * expand, H, W)
  y = clamp6(_bn1(same_conv(_depthwise_conv, y)));      // (N, mid, H / stride, W / stride)
  y = _bn2(_project_conv(y));                           // (N, out, H / stride, W / stride)
  if (spec_.stride != 1 || spec_.in != spec_.out) return y;
  if (is_training() && spec_.drop_connect > 0) y = drop_connect(y, spec_.drop_connect);
  return y + x;
}

EfficientNetLite0Impl::EfficientNetLite0Impl(int64_t num_classes)
    : _conv_stem(register_module("_conv_stem", conv(3, kStemChannels, 3, 2))),
      _bn0(register_module("_bn0", batch_norm(kStemChannels))),
      _blocks(register_module("_blocks", nn::ModuleList())),
      _conv_head(register_module("_conv_head", conv(kStages.back().out, kHeadChannels, 1, 1))),
      _bn1(register_module("_bn1", batch_norm(kHeadChannels))),
      _dropout(register_module("_dropout", nn::Dropout(kDropout))),
      _fc(register_module("_fc", nn::Linear(kHeadChannels, num_classes))) {
  int64_t index = 0;
  for (const Stage& stage : kStages) {
    for (int64_t r = 0; r < stage.repeats; ++r, ++index) {
      _blocks->push_back(MBConvBlock(
          MBConvSpec{.in = r == 0 ? stage.in : stage.out,
                     .out = stage.out,
                     .expand = stage.expand,
                     .kernel = stage.kernel,
                     .stride = r == 0 ? stage.stride : 1,
                     .drop_connect = kDropConnect * static_cast<double>(index) / kBlocks}));
    }
  }
}

torch::Tensor EfficientNetLite0Impl::forward(torch::Tensor x) {
  // x: (N, 3, S, S)
  x = clamp6(_bn0(same_conv(_conv_stem, x)));  // (N, 32, S/2, S/2)
  for (const auto& block : *_blocks) {
    x = block->as<MBConvBlock>()->forward(x);  // ... (N, 320, S/32, S/32)
  }
  x = clamp6(_bn1(_conv_head(x)));                                    // (N, 1280, S/32, S/32)
  x = F::adaptive_avg_pool2d(x, F::AdaptiveAvgPool2dFuncOptions(1));  // (N, 1280, 1, 1)
  return _fc(_dropout(torch::flatten(x, 1)));                         // (N, classes)
}

}  // namespace cifar
