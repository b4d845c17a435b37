// test_gpu_graph.cpp: the airbench94 recipe's step captured as CUDA graphs
// (a GPU; see main.cpp for the skip): four parameter groups (Muon and SGD
// at device-scalar rates), one capture per size of the resolution schedule
// and one when the whitening bias freezes, every step replayed, equal to
// the eager step within float rounding; and a step with dropout
// (EfficientNet-Lite0) drawing the eager step's random numbers. Their
// uncaptured twins are tested on the CPU (tests/train/test_replayed_step.cpp).
#include <catch2/catch.hpp>

#include "cifar/resolve/recipe.h"
#include "cifar/train/epoch.h"
#include "test_helpers.h"
#include "train/lone_learner.h"
#include "train/replayed_runs.h"

using namespace cifar;

namespace {
const torch::Device kCuda0(torch::kCUDA, 0);
constexpr int64_t kEpochs = 4, kImages = 512, kBatch = 128, kSteps = kImages / kBatch;

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
    auto t = std::make_unique<test::LoneLearner>(model, [&](ClassifierImpl& m) {
      return test::power_of_two_groups(recipe, m, kEpochs, kSteps);
    });
    EpochOptions o;
    o.shape = epoch_shape(kImages, kBatch, /*drop_last=*/true, graphed);
    o.step = step_spec(Precision{}, recipe.loss, StepSettings{});
    o.resolutions = {24, 28};
    o.log_interval_s = 1e6;
    EpochState state(kCuda0);
    const std::vector<double> losses =
        test::train_epochs(t->learner, data, o, kEpochs, kSteps, state);
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

TEST_CASE("GPU: a captured step with dropout draws what the eager step draws", "[cuda]") {
  // EfficientNet-Lite0's dropout and drop-connect draw from the CUDA
  // generator: a capture after a warm-up that puts it back replays the eager
  // steps' draws (the CPU twin: tests/train/test_replayed_step.cpp; without
  // the put-back the weights differ there by 26.8).
  constexpr int64_t kLiteImages = 64, kLiteBatch = 16;
  const DeviceDataset data(test::synthetic(kLiteImages, 7), kCuda0, Normalization{});
  auto run = [&](bool graphed) {
    torch::manual_seed(0);
    auto model = make_model(ModelOptions("efficientnet_lite0"));
    model->to(kCuda0);
    auto t = std::make_unique<test::LoneLearner>(model, 1.0 / 64, 0.5);
    EpochOptions o;
    o.shape = epoch_shape(kLiteImages, kLiteBatch, /*drop_last=*/true, graphed);
    o.log_interval_s = 1e6;
    EpochState state(kCuda0);
    torch::manual_seed(1);  // the draws start alike on both sides
    test::train_epochs(t->learner, data, o, 1, kLiteImages / kLiteBatch, state);
    if (graphed) CHECK(state.graphed->replays() == kLiteImages / kLiteBatch);
    return t;
  };
  const auto eager = run(false);
  const auto graph = run(true);
  const auto theirs = graph->model->named_parameters();
  for (const auto& item : eager->model->named_parameters()) {
    INFO(item.key());
    CHECK(torch::allclose(item.value(), theirs[item.key()], 1e-2, 1e-3));
  }
}
