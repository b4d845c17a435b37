// test_airbench.cpp: airbench94's network (shapes, names, frozen parameters,
// dirac initialisation) and its whitening filters.
#include <catch2/catch.hpp>

#include <cstdlib>
#include <filesystem>
#include <string>
#include <vector>

#include "cifar/data/cifar10.h"
#include "cifar/model/airbench.h"
#include "cifar/model/models.h"

using namespace cifar;

namespace {

// The keys of Python's state_dict(), in its order: each module's own
// parameters, then its own buffers, module by module in registration order.
std::vector<std::string> state_dict_keys(const torch::nn::Module& model) {
  std::vector<std::string> out;
  for (const auto& item : model.named_modules()) {
    const std::string prefix = item.key().empty() ? "" : item.key() + ".";
    for (const auto& p : item.value()->named_parameters(/*recurse=*/false)) {
      out.push_back(prefix + p.key());
    }
    for (const auto& b : item.value()->named_buffers(/*recurse=*/false)) {
      out.push_back(prefix + b.key());
    }
  }
  return out;
}

// Second moment (1/n) sum x x^T over every pixel of (N, C, H, W) features:
// the statistic the whitening equalises (the reference does not centre).
torch::Tensor second_moment(const torch::Tensor& features) {
  const auto flat = features.transpose(0, 1).reshape({features.size(1), -1}).to(torch::kDouble);
  return flat.matmul(flat.t()) / flat.size(1);
}

// Images whose 2x2 patches are strongly correlated: smoothed noise, mixed
// across channels, with an offset per channel, plus a little white noise (so
// that no patch direction is much weaker than eps = 5e-4).
torch::Tensor correlated_images(int64_t n) {
  auto noise = torch::randn({n, 3, 33, 33});
  auto smooth = (noise.narrow(2, 0, 32) + noise.narrow(2, 1, 32)) / 2;
  smooth = (smooth.narrow(3, 0, 32) + smooth.narrow(3, 1, 32)) / 2;
  const auto mix = torch::tensor({{1.0f, 0.0f, 0.0f}, {0.8f, 0.6f, 0.0f}, {0.5f, 0.5f, 0.7f}});
  auto mixed = torch::einsum("dc,nchw->ndhw", {mix, smooth});
  return mixed + torch::tensor({0.3f, -0.2f, 0.1f}).view({1, 3, 1, 1}) +
         0.25 * torch::randn({n, 3, 32, 32});
}

std::filesystem::path real_data_dir() {
  const char* env = std::getenv("CIFAR10_DIR");
  if (env != nullptr && *env != '\0') return env;
  return std::filesystem::path(CIFAR_SOURCE_DIR) / ".." / "shared" / "cifar-10-batches-bin";
}

}  // namespace

TEST_CASE("airbench94 maps images to logits", "[airbench]") {
  torch::manual_seed(0);
  auto model = make_model(ModelOptions("airbench94"));
  CHECK(count_parameters(*model) == 1972792);  // the reference CifarNet's count
  model->train();
  CHECK(model->forward(torch::randn({3, 3, 32, 32})).sizes() == torch::IntArrayRef{3, 10});
  model->eval();
  CHECK(model->forward(torch::randn({1, 3, 32, 32})).sizes() == torch::IntArrayRef{1, 10});
  auto five = make_model(ModelOptions("airbench94").num_classes(5));
  CHECK(five->forward(torch::randn({2, 3, 32, 32})).sizes() == torch::IntArrayRef{2, 5});
}

TEST_CASE("airbench94 takes the sizes of a resolution schedule", "[airbench]") {
  torch::manual_seed(0);
  auto model = make_model(ModelOptions("airbench94"));
  model->train();
  for (const int64_t size : {16, 24, 28, 40}) {
    INFO("size " << size);
    CHECK(model->forward(torch::randn({2, 3, size, size})).sizes() == torch::IntArrayRef{2, 10});
  }
  // At 32 px the last pool is the reference's MaxPool2d(3) of the 3x3 map.
  model->eval();
  torch::NoGradGuard no_grad;
  auto& net = dynamic_cast<Airbench94Impl&>(*model);
  const auto x = torch::randn({4, 3, 32, 32});
  auto features = torch::conv2d(x, net.whiten->weight, net.whiten->bias);  // (4, 24, 31, 31)
  auto layer = net.layers->begin();
  for (int i = 0; i < 4; ++i, ++layer) features = layer->forward(features);  // (4, 256, 3, 3)
  torch::nn::MaxPool2d reference_pool(3);
  const auto want = net.head(reference_pool(features).flatten(1)) / 256.0;
  CHECK(torch::equal(net.forward(x), want));
}

TEST_CASE("airbench94's state dict keys are Python's", "[airbench]") {
  // Taken from the reference's CifarNet (airbench94_muon.py), printed once
  // with list(CifarNet().state_dict().keys()) under torch 2.11; the twin in
  // scripts/python/cifar_models.py gives the same list (tests/cli/interop_airbench.sh
  // loads this model's weights into it with strict=True).
  const std::vector<std::string> python{"whiten.weight",
                                        "whiten.bias",
                                        "layers.1.conv1.weight",
                                        "layers.1.norm1.weight",
                                        "layers.1.norm1.bias",
                                        "layers.1.norm1.running_mean",
                                        "layers.1.norm1.running_var",
                                        "layers.1.norm1.num_batches_tracked",
                                        "layers.1.conv2.weight",
                                        "layers.1.norm2.weight",
                                        "layers.1.norm2.bias",
                                        "layers.1.norm2.running_mean",
                                        "layers.1.norm2.running_var",
                                        "layers.1.norm2.num_batches_tracked",
                                        "layers.2.conv1.weight",
                                        "layers.2.norm1.weight",
                                        "layers.2.norm1.bias",
                                        "layers.2.norm1.running_mean",
                                        "layers.2.norm1.running_var",
                                        "layers.2.norm1.num_batches_tracked",
                                        "layers.2.conv2.weight",
                                        "layers.2.norm2.weight",
                                        "layers.2.norm2.bias",
                                        "layers.2.norm2.running_mean",
                                        "layers.2.norm2.running_var",
                                        "layers.2.norm2.num_batches_tracked",
                                        "layers.3.conv1.weight",
                                        "layers.3.norm1.weight",
                                        "layers.3.norm1.bias",
                                        "layers.3.norm1.running_mean",
                                        "layers.3.norm1.running_var",
                                        "layers.3.norm1.num_batches_tracked",
                                        "layers.3.conv2.weight",
                                        "layers.3.norm2.weight",
                                        "layers.3.norm2.bias",
                                        "layers.3.norm2.running_mean",
                                        "layers.3.norm2.running_var",
                                        "layers.3.norm2.num_batches_tracked",
                                        "head.weight"};
  Airbench94 model;
  CHECK(state_dict_keys(*model) == python);
  const auto params = model->named_parameters();
  CHECK(params["whiten.weight"].sizes() == torch::IntArrayRef{24, 3, 2, 2});
  CHECK(params["whiten.bias"].sizes() == torch::IntArrayRef{24});
  CHECK(params["layers.1.conv1.weight"].sizes() == torch::IntArrayRef{64, 24, 3, 3});
  CHECK(params["layers.2.conv1.weight"].sizes() == torch::IntArrayRef{256, 64, 3, 3});
  CHECK(params["layers.3.conv2.weight"].sizes() == torch::IntArrayRef{256, 256, 3, 3});
  CHECK(params["head.weight"].sizes() == torch::IntArrayRef{10, 256});
}

TEST_CASE("airbench94 freezes the whitening and the norms' scales", "[airbench]") {
  Airbench94 model;
  int64_t frozen = 0, trained = 0;
  for (const auto& p : model->named_parameters()) {
    INFO(p.key());
    const bool should_freeze =
        p.key() == "whiten.weight" ||
        (p.key().find(".weight") != std::string::npos && p.key().find("norm") != std::string::npos);
    CHECK(p.value().requires_grad() == !should_freeze);
    (should_freeze ? frozen : trained) += p.value().numel();
  }
  CHECK(frozen == 24 * 3 * 2 * 2 + (64 + 64 + 256 + 256 + 256 + 256));  // 288 + 1,152
  CHECK(trained == 1971352);
  // The norms: eps 1e-12, PyTorch momentum 0.4, scale ones, shift zeros.
  auto* norm = model->named_modules()["layers.2.norm1"]->as<torch::nn::BatchNorm2d>();
  REQUIRE(norm != nullptr);
  CHECK(norm->options.eps() == 1e-12);
  CHECK(norm->options.momentum().value() == Approx(0.4).margin(1e-15));
  CHECK(torch::equal(norm->weight, torch::ones({256})));
  CHECK(torch::equal(norm->bias, torch::zeros({256})));

  // A backward pass gives gradients to the trained parameters only.
  model->train();
  model->forward(torch::randn({4, 3, 32, 32})).square().sum().backward();
  for (const auto& p : model->named_parameters()) {
    INFO(p.key());
    CHECK(p.value().grad().defined() == p.value().requires_grad());
  }
}

TEST_CASE("airbench94's 3x3 convs start as the identity on their first channels", "[airbench]") {
  torch::manual_seed(1);
  Airbench94 model;
  torch::NoGradGuard no_grad;
  auto group = model->layers[2]->as<ConvGroupImpl>();
  REQUIRE(group != nullptr);
  const auto x = torch::randn({2, 64, 15, 15});
  const auto y = group->conv1(x);  // 64 -> 256 channels
  CHECK(y.sizes() == torch::IntArrayRef{2, 256, 15, 15});
  CHECK(torch::allclose(y.narrow(1, 0, 64), x, 0, 1e-6));
  CHECK_FALSE(torch::allclose(y.narrow(1, 64, 64), x, 0, 0.1));  // the rest: random filters
  // conv2 (256 -> 256) is the identity, and so is layers.1's conv1 on its 24 inputs.
  const auto z = torch::randn({1, 256, 7, 7});
  CHECK(torch::allclose(group->conv2(z), z, 0, 1e-6));
  auto first = model->layers[1]->as<ConvGroupImpl>();
  const auto w = torch::randn({1, 24, 31, 31});
  CHECK(torch::allclose(first->conv1(w).narrow(1, 0, 24), w, 0, 1e-6));

  // The head is rescaled to unit standard deviation; the same seed gives the
  // same network.
  CHECK(model->head->weight.std().item<double>() == Approx(1.0).epsilon(1e-6));
  torch::manual_seed(1);
  Airbench94 again;
  for (const auto& p : model->named_parameters()) {
    INFO(p.key());
    CHECK(torch::equal(p.value(), again->named_parameters()[p.key()]));
  }
}

TEST_CASE("airbench94 draws Python's initial weights for the same seed", "[airbench]") {
  // Sums printed once by Python (torch 2.11) for
  //   torch.manual_seed(0); cifar_models.make_model("airbench94")
  // whose construction draws as the reference CifarNet's reset() does: the
  // same default initialisers in the same module order, then dirac and the
  // head's 1/std, from the global CPU generator.
  torch::manual_seed(0);
  Airbench94 model;
  auto sum = [&](const char* name) {
    return model->named_parameters()[name].to(torch::kDouble).sum().item<double>();
  };
  CHECK(sum("whiten.weight") == Approx(-3.81344362).epsilon(1e-5));
  CHECK(sum("whiten.bias") == Approx(-0.6693793).epsilon(1e-5));
  CHECK(sum("layers.1.conv1.weight") == Approx(31.0748952).epsilon(1e-5));
  CHECK(sum("layers.1.conv2.weight") == 64);  // all dirac: 64 ones
  CHECK(sum("layers.2.conv1.weight") == Approx(75.1921147).epsilon(1e-5));
  CHECK(sum("layers.3.conv2.weight") == 256);
  CHECK(sum("head.weight") == Approx(-77.992573).epsilon(1e-5));
  CHECK(model->head->weight[9][255].item<double>() == Approx(-1.41096854).epsilon(1e-6));
}

TEST_CASE("airbench94 logits are head(features) / 256, and a detached whiten bias gets no grad",
          "[airbench]") {
  torch::manual_seed(2);
  Airbench94 model;
  model->eval();
  const auto x = torch::randn({2, 3, 32, 32});
  torch::Tensor features;
  {
    torch::NoGradGuard no_grad;
    features = model->layers->forward(torch::conv2d(x, model->whiten->weight, model->whiten->bias));
    CHECK(features.sizes() == torch::IntArrayRef{2, 256, 1, 1});
    const auto expected = torch::matmul(features.flatten(1), model->head->weight.t()) / 256.0;
    CHECK(torch::allclose(model->forward(x), expected, 1e-5, 1e-6));
  }
  model->train();
  model->set_whiten_bias_grad(false);
  model->forward(x).sum().backward();
  CHECK_FALSE(model->whiten->bias.grad().defined());
  CHECK(model->layers[1]->as<ConvGroupImpl>()->conv1->weight.grad().defined());
  model->set_whiten_bias_grad(true);
  model->forward(x).sum().backward();
  CHECK(model->whiten->bias.grad().defined());
}

TEST_CASE("whitening filters decorrelate 2x2 patches", "[airbench]") {
  torch::manual_seed(3);
  const auto images = correlated_images(200);
  const auto filters = whitening_filters(images);
  REQUIRE(filters.sizes() == torch::IntArrayRef{24, 3, 2, 2});
  CHECK(torch::equal(filters.narrow(0, 12, 12), -filters.narrow(0, 0, 12)));
  // In eigh's ascending order of eigenvalues, as airbench94_muon.py (not
  // flipped, as airbench/utils.py does): the longest filters come first.
  const auto lengths = filters.narrow(0, 0, 12).flatten(1).norm(2, 1);
  CHECK((lengths.narrow(0, 0, 11) >= lengths.narrow(0, 1, 11)).all().item<bool>());
  // The raw patches are far from white...
  namespace F = torch::nn::functional;
  const auto raw = second_moment(F::unfold(images, F::UnfoldFuncOptions({2, 2})).unsqueeze(-1));
  CHECK((raw - torch::eye(12, torch::kDouble)).abs().max().item<double>() > 0.5);
  // ...the whitened ones (the first 12 filters, as a conv) have the identity
  // as second moment, up to eps / (eigenvalue + eps).
  const auto white = second_moment(torch::conv2d(images, filters.narrow(0, 0, 12)));
  CHECK((white - torch::eye(12, torch::kDouble)).abs().max().item<double>() < 0.02);
  // The whole layer as init_whitening installs it.
  Airbench94 model;
  model->init_whitening(images);
  CHECK(torch::equal(model->whiten->weight, filters));
  CHECK_FALSE(model->whiten->weight.requires_grad());
  CHECK_THROWS_WITH(whitening_filters(images.to(torch::kUInt8)), Catch::Contains("float"));
}

TEST_CASE("whitening filters from real CIFAR-10 images", "[airbench]") {
  const auto dir = real_data_dir();
  if (!std::filesystem::exists(dir / "test_batch.bin")) {
    WARN("skipped: no real CIFAR-10 at " << dir.string());
    return;
  }
  const auto data = read_cifar10(dir, Split::kTest);
  const auto mean = torch::tensor({0.4914f, 0.4822f, 0.4465f}).view({1, 3, 1, 1});
  const auto std = torch::tensor({0.2470f, 0.2435f, 0.2616f}).view({1, 3, 1, 1});
  const auto images = (data.images.narrow(0, 0, 500).to(torch::kFloat) / 255 - mean) / std;
  // CIFAR's smallest patch eigenvalues are about 1e-4, so the default eps
  // (5e-4) leaves those directions at a variance of about 1/6: the whitened
  // second moment is diag(1 - eps * |filter|^2), and with a small eps it is
  // the identity.
  const double eps = 5e-4;
  const auto filters = whitening_filters(images, 2, eps).narrow(0, 0, 12);
  const auto white = second_moment(torch::conv2d(images, filters));
  const auto norms2 = filters.flatten(1).square().sum(1).to(torch::kDouble);
  const auto expected = torch::diag(1 - eps * norms2);
  CHECK((white - expected).abs().max().item<double>() < 0.02);
  CHECK(expected.diag().min().item<double>() < 0.5);  // the eps matters here
  const auto sharp = whitening_filters(images, 2, 1e-7).narrow(0, 0, 12);
  const auto white_sharp = second_moment(torch::conv2d(images, sharp));
  CHECK((white_sharp - torch::eye(12, torch::kDouble)).abs().max().item<double>() < 0.05);
}
