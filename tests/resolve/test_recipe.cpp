// test_recipe.cpp: the recipes' parameter groups, and the groups themselves.
//
// airbench94's groups must hold every trainable parameter of its network
// exactly once and no frozen one, in the reference's four groups with its
// rates; the groups' state saves and loads by name; a group frozen when its
// schedule ends stops getting gradients; the linear schedule falls to zero.
#include <catch2/catch.hpp>

#include <set>

#include "cifar/model/models.h"
#include "cifar/optim/muon.h"
#include "cifar/resolve/recipe.h"

using namespace cifar;

namespace {
TrainConfig airbench_config() {
  TrainConfig c;
  c.recipe = "airbench94";
  c.epochs = 8;
  c.batch_size = 2000;
  return c;
}

std::set<std::string> names_in(const ParamGroup& g, const torch::nn::Module& model) {
  std::set<std::string> out;
  for (const auto& item : model.named_parameters()) {
    for (const auto& p : g.params) {
      if (p.is_same(item.value())) out.insert(item.key());
    }
  }
  return out;
}
}  // namespace

TEST_CASE("airbench94's Muon runs Newton-Schulz in the run's matmul type", "[recipe]") {
  torch::manual_seed(0);
  const Classifier model = make_model(ModelOptions("airbench94"));
  for (const auto dtype : {torch::kFloat, torch::kBFloat16}) {
    const Precision precision{
        .amp = AmpMode::kOff, .matmul_dtype = dtype, .why = {}, .warning = {}};
    const ParamGroups groups = make_recipe(airbench_config(), precision).param_groups(*model, 25);
    const auto* muon = dynamic_cast<Muon*>(groups.groups()[0].optimizer.get());
    REQUIRE(muon != nullptr);
    CHECK(muon->options().ns_dtype() == dtype);
  }
  // Without a resolved precision (tests, tools): float32, never an emulated bf16.
  const ParamGroups plain = make_recipe(airbench_config()).param_groups(*model, 25);
  CHECK(dynamic_cast<Muon*>(plain.groups()[0].optimizer.get())->options().ns_dtype() ==
        torch::kFloat);
}

TEST_CASE("airbench94's groups cover its trainable parameters once", "[recipe]") {
  torch::manual_seed(0);
  const Classifier model = make_model(ModelOptions("airbench94"));
  const Recipe recipe = make_recipe(airbench_config());
  CHECK(recipe.network == "airbench94");
  CHECK(recipe.drop_last);
  CHECK(recipe.loss.sum);
  CHECK(recipe.loss.label_smoothing == 0.2);
  CHECK(recipe.augmentation == kAirbenchAugmentation);
  const ParamGroups groups = recipe.param_groups(*model, 25);
  CHECK_NOTHROW(check_covers(groups, *model));

  const auto& g = groups.groups();
  REQUIRE(g.size() == 4);
  CHECK(g[0].name == "filters");
  CHECK(dynamic_cast<Muon*>(g[0].optimizer.get()) != nullptr);
  CHECK(g[0].params.size() == 6);  // two 3x3 convs in each of three groups
  for (const auto& p : g[0].params) CHECK(p.dim() == 4);
  CHECK(names_in(g[1], *model) == std::set<std::string>{"whiten.bias"});
  CHECK(g[1].freeze_when_done);
  CHECK(g[2].params.size() == 6);  // norm1.bias and norm2.bias of three groups
  for (const auto& name : names_in(g[2], *model)) CHECK(name.find("norm") != std::string::npos);
  CHECK(names_in(g[3], *model) == std::set<std::string>{"head.weight"});
  // The frozen ones: whiten.weight and every BatchNorm weight.
  for (const auto& item : model->named_parameters()) {
    const bool frozen =
        item.key() == "whiten.weight" ||
        (item.key().find("norm") != std::string::npos && item.key().ends_with(".weight"));
    CHECK(item.value().requires_grad() == !frozen);
  }
  // The reference's rates: Muon 0.24, biases 0.053, head 0.67, linear to zero;
  // the whitening bias over 3 of the 8 epochs.
  CHECK(groups.lr(0) == Approx(0.24));
  CHECK(lr_at(g[1].schedule, 0) == Approx(0.053));
  CHECK(lr_at(g[3].schedule, 0) == Approx(0.67));
  CHECK(lr_at(g[1].schedule, 74) > 0);
  CHECK(lr_at(g[1].schedule, 75) == 0);
  CHECK(lr_at(g[0].schedule, 100) == Approx(0.12));
  CHECK(lr_at(g[0].schedule, 199) > 0);
}

TEST_CASE("check_covers refuses a frozen parameter, a missing one and a repeat", "[recipe]") {
  torch::manual_seed(0);
  const Classifier model = make_model(ModelOptions("airbench94"));
  auto with = [&](std::vector<torch::Tensor> params) {
    return one_sgd_group(params, SgdOptions(), {.lr = 0.1});
  };
  std::vector<torch::Tensor> trainable, all = model->parameters();
  for (const auto& p : all) {
    if (p.requires_grad()) trainable.push_back(p);
  }
  CHECK_NOTHROW(check_covers(with(trainable), *model));
  CHECK_THROWS_WITH(check_covers(with(all), *model), Catch::Contains("frozen parameter"));
  auto fewer = trainable;
  fewer.pop_back();
  CHECK_THROWS_WITH(check_covers(with(fewer), *model), Catch::Contains("in no group"));
  auto twice = trainable;
  twice.push_back(trainable.front());
  CHECK_THROWS_WITH(check_covers(with(twice), *model), Catch::Contains("two groups"));
}

TEST_CASE("the classic recipe is one SGD group over every trainable parameter", "[recipe]") {
  TrainConfig c;
  c.lr = 0.05;
  c.schedule = Schedule::kCosine;
  const Classifier model = make_model(ModelOptions("net"));
  const Recipe recipe = make_recipe(c);
  const ParamGroups groups = recipe.param_groups(*model, 10);
  REQUIRE(groups.groups().size() == 1);
  CHECK(std::string(groups.groups().front().optimizer->name()) == "sgd");
  CHECK(groups.groups().front().params.size() == model->parameters().size());
  CHECK(groups.lr(0) == Approx(0.05));
  CHECK_FALSE(recipe.loss.sum);
  CHECK_FALSE(recipe.drop_last);
}

TEST_CASE("the step takes the given settings, a recipe's own loss over them", "[recipe]") {
  TrainConfig c;
  c.step.label_smoothing = 0.1;
  Precision bf16;
  bf16.amp = AmpMode::kBf16;
  const StepSpec classic = step_spec(bf16, make_recipe(c).loss, c.step);
  CHECK(classic.precision.amp == AmpMode::kBf16);
  CHECK(classic.settings.label_smoothing == 0.1);  // --label-smoothing
  CHECK_FALSE(classic.sum_loss);
  const StepSpec airbench = step_spec(Precision{}, make_recipe(airbench_config()).loss, c.step);
  CHECK(airbench.settings.label_smoothing == 0.2);  // its own, over the given 0.1
  CHECK(airbench.sum_loss);
}

TEST_CASE("parameter groups save and load their state by name", "[recipe]") {
  torch::manual_seed(1);
  auto make = [](const Classifier& m) {
    return make_recipe(airbench_config()).param_groups(*m, 25);
  };
  const Classifier model = make_model(ModelOptions("airbench94"));
  ParamGroups groups = make(model);
  const auto x = torch::randn({8, 3, 32, 32});
  model->forward(x).sum().backward();
  groups.step(0);  // momentum buffers now hold the first gradients
  torch::serialize::OutputArchive out;
  groups.save(out);
  std::ostringstream bytes;
  out.save_to(bytes);

  const Classifier other = make_model(ModelOptions("airbench94"));
  ParamGroups restored = make(other);
  torch::serialize::InputArchive in;
  std::istringstream read(bytes.str());
  in.load_from(read);
  restored.load(in);
  // The same next update from the same parameters and gradients.
  {
    torch::NoGradGuard no_grad;
    for (size_t i = 0; i < model->parameters().size(); ++i) {
      other->parameters()[i].copy_(model->parameters()[i]);
    }
  }
  for (const auto& m : {model, other}) {
    m->zero_grad();
    m->forward(x).sum().backward();
  }
  groups.step(1);
  restored.step(1);
  for (size_t i = 0; i < model->parameters().size(); ++i) {
    CHECK(torch::equal(model->parameters()[i], other->parameters()[i]));
  }
  // A one-group state does not load into the four groups.
  torch::serialize::OutputArchive single;
  one_sgd_group(model->parameters(), SgdOptions().momentum(0.9), {.lr = 0.1}).save(single);
  std::ostringstream single_bytes;
  single.save_to(single_bytes);
  torch::serialize::InputArchive single_in;
  std::istringstream single_read(single_bytes.str());
  single_in.load_from(single_read);
  CHECK_THROWS_WITH(restored.load(single_in), Catch::Contains("another recipe"));
}

TEST_CASE("a group frozen when done stops getting gradients, from the right step", "[recipe]") {
  torch::manual_seed(2);
  const Classifier model = make_model(ModelOptions("airbench94"));
  ParamGroups groups = make_recipe(airbench_config()).param_groups(*model, 25);
  const torch::Tensor& bias = groups.groups()[1].params.front();  // whiten.bias
  groups.freeze_done(0);
  CHECK(bias.requires_grad());
  groups.freeze_done(74);
  CHECK(bias.requires_grad());
  groups.freeze_done(75);  // a resumed run at step 75: its 3 epochs are over
  CHECK_FALSE(bias.requires_grad());
  // The others train on.
  CHECK(groups.groups()[0].params.front().requires_grad());
  CHECK(groups.groups()[3].params.front().requires_grad());
}

TEST_CASE("the linear schedule falls from the peak to zero", "[recipe][optim]") {
  const ScheduleOptions o{
      .schedule = Schedule::kLinear, .lr = 1.0, .epochs = 2, .steps_per_epoch = 5};
  CHECK(lr_at(o, 0) == 1.0);
  CHECK(lr_at(o, 5) == Approx(0.5));
  CHECK(lr_at(o, 9) == Approx(0.1));
  CHECK(lr_at(o, 10) == 0.0);
  CHECK(lr_at(o, 50) == 0.0);
  CHECK(find_name(kScheduleNames, "linear") == Schedule::kLinear);
  CHECK(to_string(Schedule::kLinear) == "linear");
}
