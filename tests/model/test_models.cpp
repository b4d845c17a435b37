// test_models.cpp: output shapes, parameter counts and Python-compatible names.
#include <catch2/catch.hpp>

#include <algorithm>

#include "cifar/model/models.h"

using namespace cifar;

namespace {
std::vector<std::string> keys(const torch::nn::Module& m) {
  std::vector<std::string> out;
  for (const auto& item : m.named_parameters()) out.push_back(item.key());
  for (const auto& item : m.named_buffers()) out.push_back(item.key());
  return out;
}
bool has(const std::vector<std::string>& v, const std::string& k) {
  return std::find(v.begin(), v.end(), k) != v.end();
}
}  // namespace

TEST_CASE("net is the tutorial CNN", "[models]") {
  auto model = make_model(ModelOptions("net"));
  CHECK(count_parameters(*model) == 62006);
  const auto out = model->forward(torch::randn({2, 3, 32, 32}));
  CHECK(out.sizes() == torch::IntArrayRef{2, 10});
  const std::vector<std::string> expected{
      "conv1.weight", "conv1.bias", "conv2.weight", "conv2.bias", "fc1.weight",
      "fc1.bias",     "fc2.weight", "fc2.bias",     "fc3.weight", "fc3.bias"};
  CHECK(keys(*model) == expected);
  CHECK(model->named_parameters()["fc1.weight"].sizes() == torch::IntArrayRef{120, 400});
}

TEST_CASE("resnet18 matches torchvision's state dict names", "[models]") {
  auto model = make_model(ModelOptions("resnet18"));
  CHECK(count_parameters(*model) == 11173962);
  const auto k = keys(*model);
  // torchvision's resnet18 has 62 parameters and 60 buffers (BN mean, var, count).
  CHECK(model->named_parameters().size() == 62);
  CHECK(model->named_buffers().size() == 60);
  for (const char* name :
       {"conv1.weight", "bn1.weight", "bn1.running_mean", "bn1.num_batches_tracked",
        "layer1.0.conv1.weight", "layer1.1.bn2.bias", "layer2.0.downsample.0.weight",
        "layer2.0.downsample.1.running_var", "layer4.1.conv2.weight", "fc.weight", "fc.bias"}) {
    INFO(name);
    CHECK(has(k, name));
  }
  CHECK_FALSE(has(k, "layer1.0.downsample.0.weight"));  // same shape: no projection
  CHECK(model->named_parameters()["conv1.weight"].sizes() == torch::IntArrayRef{64, 3, 3, 3});
  model->eval();
  CHECK(model->forward(torch::randn({2, 3, 32, 32})).sizes() == torch::IntArrayRef{2, 10});
}

TEST_CASE("resnet18 with the ImageNet stem", "[models]") {
  auto model = make_model(ModelOptions("resnet18").stem(ResNetStem::kImageNet));
  CHECK(count_parameters(*model) == 11181642);
  CHECK(model->named_parameters()["conv1.weight"].sizes() == torch::IntArrayRef{64, 3, 7, 7});
  model->eval();
  CHECK(model->forward(torch::randn({1, 3, 32, 32})).sizes() == torch::IntArrayRef{1, 10});
}

TEST_CASE("an unknown model name lists the known ones", "[models]") {
  REQUIRE_THROWS_AS(make_model(ModelOptions("vgg")), std::runtime_error);
  REQUIRE_THROWS_WITH(make_model(ModelOptions("vgg")),
                      Catch::Contains("'vgg'") && Catch::Contains("net, resnet18"));
  REQUIRE_THROWS_WITH(parse_stem("big"), Catch::Contains("cifar or imagenet"));
}
