// test_fine_tune.cpp: the head each registry entry names, a new head on a
// loaded body, the frozen body, the body at a fraction of the rate.
//
// The head the registry names must be exactly the tensors whose shape
// changes with the class count, for every model; copy_body leaves the fresh
// head alone and copies every other tensor; a frozen body is in no group and
// its batch norms are the modules held in eval mode; --body-lr-scale splits
// each recipe's groups into head and body, the body's at the scaled rate.
#include <catch2/catch.hpp>

#include "cifar/model/model_body.h"
#include "cifar/model/model_registry.h"
#include "cifar/model/state_dict.h"
#include "cifar/train/fine_tune.h"

using namespace cifar;

TEST_CASE("each registry entry's head is what changes with the class count", "[fine_tune]") {
  for (const ModelEntry& entry : model_registry()) {
    const ModelOptions options = ModelOptions(entry.name).stem(ResNetStem::kImageNet);
    const TensorMap a = model_state_dict(*make_model(ModelOptions(options).num_classes(3)));
    const TensorMap b = model_state_dict(*make_model(ModelOptions(options).num_classes(4)));
    int heads = 0;
    for (const auto& [name, t] : a) {
      INFO(entry.name << " " << name);
      CHECK(is_head_tensor(entry, name) == (t.sizes() != b.at(name).sizes()));
      heads += is_head_tensor(entry, name) ? 1 : 0;
    }
    CHECK(heads >= 1);
  }
}

TEST_CASE("copy_body: the loaded body, the fresh head", "[fine_tune]") {
  const ModelEntry& entry = model_entry("resnet18");
  torch::manual_seed(1);
  const Classifier loaded = make_model(ModelOptions("resnet18").num_classes(1000));
  torch::manual_seed(2);
  const Classifier fresh = make_model(ModelOptions("resnet18").num_classes(2));
  const TensorMap head_before = model_state_dict(*fresh);
  const torch::Tensor fc = head_before.at("fc.weight").clone();
  copy_body(*loaded, *fresh, entry);
  const TensorMap from = model_state_dict(*loaded);
  for (const auto& [name, t] : model_state_dict(*fresh)) {
    INFO(name);
    if (is_head_tensor(entry, name)) continue;
    CHECK(torch::equal(t, from.at(name)));
  }
  CHECK(torch::equal(model_state_dict(*fresh).at("fc.weight"), fc));
}

TEST_CASE("a frozen body is in no group, its batch norms held in eval mode", "[fine_tune]") {
  TrainConfig config;
  config.recipe = "airbench94";
  const Recipe recipe = make_recipe(config);
  const ModelEntry& entry = model_entry("airbench94");
  const Classifier model = make_model(ModelOptions("airbench94").num_classes(2));
  freeze_body(*model, entry);
  const ParamGroups groups = fine_tune_groups(recipe, *model, 10, entry, 1.0);
  REQUIRE(groups.groups().size() == 1);  // the filter and bias groups left empty are dropped
  CHECK(groups.groups().front().name == "head");
  check_covers(groups, *model);
  const auto held = body_statistics_modules(*model, entry);
  CHECK(held.size() == 6);  // the six BatchNorms of the three conv groups
  for (const auto& m : held) CHECK(m->named_buffers(false).contains("running_mean"));
}

TEST_CASE("body-lr-scale: the recipe's groups over head and body apart", "[fine_tune]") {
  const ModelEntry& entry = model_entry("net");
  TrainConfig config;
  config.lr = 0.1;
  const Classifier model = make_model(ModelOptions("net").num_classes(2));
  const ParamGroups groups = fine_tune_groups(make_recipe(config), *model, 10, entry, 0.25);
  check_covers(groups, *model);
  REQUIRE(groups.groups().size() == 2);
  CHECK(groups.groups()[0].name == "head");
  CHECK(groups.groups()[0].params.size() == 2);  // fc3.weight, fc3.bias
  CHECK(groups.groups()[0].schedule.lr == 0.1);
  CHECK(groups.groups()[1].name == "body");
  CHECK(groups.groups()[1].params.size() == 8);
  CHECK(groups.groups()[1].schedule.lr == Approx(0.025));
  for (const auto& p : model->parameters()) CHECK(p.requires_grad());  // put back
}

TEST_CASE("train-from: the modules before it keep their tensors, in the forward order",
          "[fine_tune]") {
  const Classifier lite = make_model(ModelOptions("efficientnet_lite0").num_classes(2));
  const std::vector<std::string> names = trainable_from_names(*lite);
  REQUIRE(names.size() == 22);  // stem, its norm, _blocks and its 16 blocks, head conv, norm, fc
  CHECK(names[0] == "_conv_stem");
  CHECK(names[1] == "_bn0");
  CHECK(names[3] == "_blocks.0");
  CHECK(names[19] == "_conv_head");
  CHECK(names[21] == "_fc");
  const auto held = freeze_before(*lite, "_blocks.12");
  CHECK(held.size() == 1 + 2 + 11 * 3);  // _bn0; block 0 has no expansion, so two norms
  for (const auto& item : lite->named_parameters()) {
    const std::string& key = item.key();
    const bool before = key.starts_with("_conv_stem.") || key.starts_with("_bn0.") ||
                        (key.starts_with("_blocks.") && std::stoi(key.substr(8)) < 12);
    INFO(key);
    CHECK(item.value().requires_grad() == !before);
  }
  const Classifier resnet = make_model(ModelOptions("resnet18").num_classes(2));
  freeze_before(*resnet, "layer4");
  for (const auto& item : resnet->named_parameters()) {
    INFO(item.key());
    CHECK(item.value().requires_grad() ==
          (item.key().starts_with("layer4.") || item.key().starts_with("fc.")));
  }
}

TEST_CASE("bn-momentum: every batch norm's running statistics move at the given rate",
          "[fine_tune]") {
  const Classifier model = make_model(ModelOptions("efficientnet_lite0").num_classes(2));
  CHECK(set_batch_norm_momentum(*model, 0.5) == 49);  // 1 + 2 + 15 * 3 + 1
  auto bn = model->named_modules()["_bn0"]->as<torch::nn::BatchNorm2d>();
  REQUIRE(bn != nullptr);
  const torch::Tensor x = torch::rand({2, 32, 4, 4}) + 1;  // (N, C, H, W), mean about 1.5
  bn->train();
  bn->forward(x);
  CHECK(torch::allclose(bn->running_mean, 0.5 * x.mean({0, 2, 3}), 1e-5, 1e-6));
}
