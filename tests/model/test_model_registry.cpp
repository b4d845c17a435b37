// test_model_registry.cpp: what each model's registry entry declares is what
// the model does: every entry builds its model, maps (N, 3, 32, 32) to
// (N, classes), and takes other image sizes exactly when it says so.
#include <catch2/catch.hpp>

#include <set>

#include "cifar/model/model_registry.h"

using namespace cifar;

TEST_CASE("each model entry builds its model and takes the image sizes it declares",
          "[model][registry]") {
  std::set<std::string> names;
  for (const ModelEntry& entry : model_registry()) {
    INFO(entry.name);
    CHECK(names.insert(entry.name).second);
    torch::manual_seed(0);
    Classifier model = make_model(ModelOptions(entry.name).num_classes(7));
    model->eval();
    torch::NoGradGuard no_grad;
    const int64_t side = entry.any_image_size() ? 32 : entry.image_size;
    CHECK(model->forward(torch::randn({2, 3, side, side})).sizes() == torch::IntArrayRef{2, 7});
    if (entry.any_image_size()) {  // from --image-size's least to well above CIFAR's
      for (const int64_t other : {entry.min_image_size, int64_t{24}, int64_t{64}, int64_t{96}}) {
        INFO(other);
        CHECK(model->forward(torch::randn({2, 3, other, other})).sizes() ==
              torch::IntArrayRef{2, 7});
        CHECK(entry.takes_image_size(other));
      }
    } else {
      CHECK_THROWS(model->forward(torch::randn({2, 3, 24, 24})));
      CHECK_FALSE(entry.takes_image_size(64));
    }
    if (entry.any_image_size() && entry.min_image_size > ModelEntry{}.min_image_size) {
      const int64_t below = entry.min_image_size - 1;  // a declared least: below it, no forward
      CHECK_FALSE(entry.takes_image_size(below));
      CHECK_THROWS(model->forward(torch::randn({2, 3, below, below})));
    }
  }
  CHECK(model_names().size() == model_registry().size());
  CHECK_THROWS_AS(model_entry("vgg11"),
                  std::runtime_error);  // a file's name: config/ refuses --model
  CHECK_THROWS_WITH(make_model(ModelOptions("vgg11")), Catch::Contains("resnet18"));
}

TEST_CASE("the stem choice is declared by the models that have one", "[model][registry]") {
  for (const ModelEntry& entry : model_registry()) {
    INFO(entry.name);
    if (!entry.has_stem) continue;
    auto cifar = make_model(ModelOptions(entry.name).stem(ResNetStem::kCifar));
    auto imagenet = make_model(ModelOptions(entry.name).stem(ResNetStem::kImageNet));
    CHECK(cifar->named_parameters()["conv1.weight"].sizes() !=
          imagenet->named_parameters()["conv1.weight"].sizes());
  }
}

TEST_CASE("a model's data initialisation is its entry's hook", "[model][registry]") {
  // Every entry that declares init_from_images changes some tensor from the
  // images it is given; the others declare none.
  const torch::Tensor images = torch::rand({64, 3, 32, 32});
  for (const ModelEntry& entry : model_registry()) {
    INFO(entry.name);
    if (entry.init_from_images == nullptr) continue;
    torch::manual_seed(0);
    Classifier model = make_model(ModelOptions(entry.name));
    auto tensors = [&] {
      std::vector<torch::Tensor> all;
      for (const auto& t : model->named_parameters()) all.push_back(t.value().detach().clone());
      for (const auto& t : model->named_buffers()) all.push_back(t.value().clone());
      return all;
    };
    const std::vector<torch::Tensor> before = tensors();
    entry.init_from_images(*model, images);
    const std::vector<torch::Tensor> after = tensors();
    size_t changed = 0;
    for (size_t i = 0; i < before.size(); ++i) changed += !torch::equal(before[i], after[i]);
    CHECK(changed > 0);
  }
  CHECK(model_entry("airbench94").init_from_images != nullptr);  // its whitening
  CHECK(model_entry("net").init_from_images == nullptr);
}
