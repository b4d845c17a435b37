// test_replayed_step.cpp: the step a CUDA graph captures, run uncaptured on
// the CPU (its twin), trains bit for bit as the eager step does:
// airbench94's four groups (Muon and SGD at device-scalar rates) through a
// resolution schedule and the whitening bias frozen by its schedule,
// recorded once per image size and set of training groups; and a step at a
// training group's rate 0 leaves its momentum as the eager step does. The
// twin runs the graph's warm-up too, which must put the model, the
// optimisers' state and the random-number generator (dropout) back. (The
// capture itself is tested on a GPU: tests/cuda/test_gpu_graph.cpp.)
#include <catch2/catch.hpp>

#include "cifar/resolve/recipe.h"
#include "cifar/train/epoch.h"
#include "test_helpers.h"
#include "train/lone_learner.h"
#include "train/momentum_of.h"
#include "train/replayed_runs.h"

using namespace cifar;
using cifar::test::LoneLearner;
using cifar::test::momentum_of;
using cifar::test::synthetic;

namespace {

constexpr int64_t kEpochs = 4, kImages = 48, kBatch = 16, kSteps = kImages / kBatch;

TrainConfig airbench_config() {
  TrainConfig c;
  c.recipe = "airbench94";
  c.epochs = kEpochs;
  c.batch_size = kBatch;
  return c;
}

Classifier seeded(const char* model) {
  torch::manual_seed(0);
  return make_model(ModelOptions(model));
}

// The largest difference between the two models' parameters.
double max_difference(const Classifier& a, const Classifier& b) {
  double most = 0;
  const auto theirs = b->named_parameters();
  for (const auto& item : a->named_parameters()) {
    const double d = (item.value() - theirs[item.key()]).abs().max().item<double>();
    most = std::max(most, d);
  }
  return most;
}

}  // namespace

TEST_CASE("the uncaptured twin of the graphed step trains airbench94's groups as eager does",
          "[epoch][recipe]") {
  const DeviceDataset train(synthetic(kImages, 5), torch::kCPU, Normalization{});
  const Recipe recipe = make_recipe(airbench_config());
  auto run = [&](bool replayed) {
    auto t = std::make_unique<LoneLearner>(seeded("airbench94"), [&](ClassifierImpl& m) {
      return test::power_of_two_groups(recipe, m, kEpochs, kSteps);
    });
    EpochOptions o;
    o.shape = epoch_shape(kImages, kBatch, /*drop_last=*/true, /*graphed=*/replayed);
    o.step = step_spec(Precision{}, recipe.loss, StepSettings{});
    o.resolutions = {24, 28};  // then 32 px
    EpochState state(torch::kCPU);
    if (replayed) state.graphed = make_uncaptured_step(t->learner, o.step, state.totals);
    const std::vector<double> losses =
        test::train_epochs(t->learner, train, o, kEpochs, kSteps, state);
    if (replayed) {
      // 24 px, again at 24 px once the whitening bias froze (step 2), 28 and
      // 32 px; every step replayed, none eager.
      CHECK(state.graphed->recordings() == 4);
      CHECK(state.graphed->replays() == kEpochs * kSteps);
      CHECK(state.graphed->eager_steps() == 0);
    }
    return std::make_pair(std::move(t), losses);
  };
  const auto [eager, eager_losses] = run(false);
  const auto [twin, twin_losses] = run(true);
  CHECK_FALSE(twin->model->named_parameters()["whiten.bias"].requires_grad());
  CHECK_FALSE(eager->model->named_parameters()["whiten.bias"].requires_grad());
  CHECK(twin_losses == eager_losses);
  CHECK(max_difference(eager->model, twin->model) == 0);
  CHECK(max_difference(eager->model, seeded("airbench94")) > 1e-2);  // and it did train
}

TEST_CASE("a replayed step at a training group's rate 0 leaves it as the eager step does",
          "[epoch]") {
  const DeviceDataset train(synthetic(64, 6), torch::kCPU, Normalization{});
  const EpochPlan plan = train.plan_epoch(false, false, 0, 1);
  // A schedule of 2 steps (rates 2^-3, 2^-4: see above), run for 4: steps 2
  // and 3 are at rate 0.
  auto run = [&](bool replayed) {
    auto t = std::make_unique<LoneLearner>(seeded("net"), [](ClassifierImpl& m) {
      return one_sgd_group(m.parameters(), SgdOptions().momentum(0.9).weight_decay(0.01),
                           {.schedule = Schedule::kLinear, .lr = 0.125, .steps_per_epoch = 2});
    });
    RunningTotals totals(torch::kCPU);
    if (replayed) {
      const auto step = make_uncaptured_step(t->learner, {}, totals);
      for (int64_t s = 0; s < 4; ++s) step->run(train.batch(plan, s * 16, 16), s);
      CHECK(step->replays() == 2);
      CHECK(step->eager_steps() == 2);
    } else {
      const auto step = make_eager_step(t->learner, {}, totals);
      for (int64_t s = 0; s < 4; ++s) step->run(train.batch(plan, s * 16, 16), s);
    }
    return t;
  };
  const auto eager = run(false);
  const auto twin = run(true);
  CHECK(torch::equal(momentum_of(eager->groups, 1)[0], momentum_of(twin->groups, 1)[0]));
  CHECK(max_difference(eager->model, twin->model) == 0);
}

TEST_CASE("a replayed step draws the random numbers the eager step draws", "[epoch]") {
  // EfficientNet-Lite0 drops units (dropout 0.2) and samples (drop-connect)
  // at random: the warm-up's draws must not shift the replays' from the
  // eager steps'.
  const DeviceDataset train(synthetic(16, 7), torch::kCPU, Normalization{});
  const EpochPlan plan = train.plan_epoch(false, false, 0, 1);
  auto run = [&](bool replayed) {
    auto t = std::make_unique<LoneLearner>(seeded("efficientnet_lite0"), 1.0 / 64, 0.5);
    RunningTotals totals(torch::kCPU);
    const auto step = replayed ? make_uncaptured_step(t->learner, {}, totals)
                               : make_eager_step(t->learner, {}, totals);
    torch::manual_seed(1);  // the draws start alike on both sides
    for (int64_t s = 0; s < 4; ++s) step->run(train.batch(plan, s * 4, 4), s);
    return t;
  };
  const auto eager = run(false);
  const auto twin = run(true);
  CHECK(max_difference(eager->model, twin->model) == 0);
  CHECK(max_difference(eager->model, seeded("efficientnet_lite0")) > 0);  // and it did train
}
