// test_gpu_graph.cpp: the airbench94 recipe's step captured as CUDA graphs
// (a GPU; see main.cpp for the skip): four parameter groups (Muon and SGD
// at device-scalar rates), one capture per size of the resolution schedule
// and one when the whitening bias freezes, every step replayed, equal to
// the eager step within float rounding. Its uncaptured twin is tested on the CPU
// (tests/train/test_replayed_step.cpp).
#include <catch2/catch.hpp>

#include <functional>

#include "cifar/resolve/recipe.h"
#include "cifar/train/epoch.h"
#include "test_helpers.h"

using namespace cifar;

namespace {
const torch::Device kCuda0(torch::kCUDA, 0);
constexpr int64_t kEpochs = 4, kImages = 512, kBatch = 128, kSteps = kImages / kBatch;

// airbench94's groups at rates that are powers of 2 (as the CPU twin's
// test: the eager and device-rate updates then round alike), the whitening
// bias falling to 0 over its first 2 steps and freezing mid-epoch.
ParamGroups power_of_two_groups(const Recipe& recipe, ClassifierImpl& model) {
  std::vector<ParamGroup> groups = recipe.param_groups(model, kSteps).release();
  for (ParamGroup& g : groups) {
    g.schedule = {
        .schedule = Schedule::kConstant, .lr = 0.25, .epochs = kEpochs, .steps_per_epoch = kSteps};
    if (g.freeze_when_done) {
      g.schedule = {
          .schedule = Schedule::kLinear, .lr = 1.0 / 64, .epochs = 1, .steps_per_epoch = 2};
    }
  }
  return ParamGroups(std::move(groups));
}

struct Trainee {
  Trainee(Classifier m, const std::function<ParamGroups(ClassifierImpl&)>& make_groups)
      : model(std::move(m)),
        groups(make_groups(*model)),
        averager(dist, model->parameters()),
        scaler(false, kCuda0),
        learner{*model, groups, dist, averager, scaler} {}
  Classifier model;
  ParamGroups groups;
  Distributed dist{DistEnv{}, kCuda0};
  GradientAverager averager;
  GradScaler scaler;
  Learner learner;
};
}  // namespace

TEST_CASE("GPU: airbench94's step is captured per size and frozen set, equal to eager", "[cuda]") {
  const DeviceDataset data(test::synthetic(kImages, 7), kCuda0, Normalization{});
  TrainConfig c;
  c.recipe = "airbench94";
  c.epochs = kEpochs;
  c.batch_size = kBatch;
  const Recipe recipe = make_recipe(c);
  auto run = [&](bool graphed) {
    torch::manual_seed(0);
    auto model = make_model(ModelOptions("airbench94"));
    model->to(kCuda0);
    auto t = std::make_unique<Trainee>(
        model, [&](ClassifierImpl& m) { return power_of_two_groups(recipe, m); });
    EpochOptions o;
    o.shape = epoch_shape(kImages, kBatch, /*drop_last=*/true, graphed);
    o.step = step_spec(Precision{}, recipe.loss, StepSettings{});
    o.resolutions = {24, 28};
    o.log_interval_s = 1e6;
    EpochState state(kCuda0);
    std::vector<double> losses;
    for (int64_t epoch = 1; epoch <= kEpochs; ++epoch) {
      const EpochPosition at{epoch, kEpochs, 0, (epoch - 1) * kSteps};
      losses.push_back(
          train_one_epoch(t->learner, data, data.plan_epoch(true, false, 0, epoch), o, at, &state)
              .loss);
    }
    if (graphed) {
      // 24 px, again mid-epoch without the whitening bias, 28 and 32 px:
      // every step replayed.
      CHECK(state.graphed->recordings() == 4);
      CHECK(state.graphed->replays() == kEpochs * kSteps);
      CHECK(state.graphed->eager_steps() == 0);
    }
    return std::make_pair(std::move(t), losses);
  };
  const auto [eager, eager_losses] = run(false);
  const auto [graph, graph_losses] = run(true);
  // GPU kernels may add in another order in the two runs: within rounding,
  // which 16 Muon steps enlarge.
  for (size_t i = 0; i < eager_losses.size(); ++i) {
    CHECK(graph_losses[i] == Approx(eager_losses[i]).epsilon(1e-2));
  }
  const auto theirs = graph->model->named_parameters();
  for (const auto& item : eager->model->named_parameters()) {
    INFO(item.key());
    CHECK(torch::allclose(item.value(), theirs[item.key()], 1e-2, 1e-3));
  }
}
