// test_replayed_step.cpp: the step a CUDA graph captures, run uncaptured on
// the CPU (its twin), trains bit for bit as the eager step does:
// airbench94's four groups (Muon and SGD at device-scalar rates) through a
// resolution schedule and the whitening bias frozen by its schedule,
// recorded once per image size and set of training groups; and a step at a
// training group's rate 0 leaves its momentum as the eager step does. The
// twin runs the graph's warm-up too, which must put the model and the
// optimisers' state back. (The capture itself is tested on a GPU:
// tests/cuda/test_gpu_graph.cpp.)
#include <catch2/catch.hpp>

#include <functional>
#include <sstream>

#include "cifar/resolve/recipe.h"
#include "cifar/train/epoch.h"
#include "test_helpers.h"

using namespace cifar;
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

// One process training `model` with `groups`.
struct Trainee {
  Trainee(Classifier m, const std::function<ParamGroups(ClassifierImpl&)>& make_groups)
      : model(std::move(m)),
        groups(make_groups(*model)),
        averager(dist, model->parameters()),
        scaler(false, torch::kCPU),
        learner{*model, groups, dist, averager, scaler} {}
  Classifier model;
  ParamGroups groups;
  Distributed dist{DistEnv{}, torch::kCPU};
  GradientAverager averager;
  GradScaler scaler;
  Learner learner;
};

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

// The first momentum buffer of a one-group run, as its checkpoint holds it.
torch::Tensor first_momentum(const ParamGroups& groups) {
  torch::serialize::OutputArchive out;
  groups.save(out);
  std::ostringstream bytes;
  out.save_to(bytes);
  std::istringstream in_bytes(bytes.str());
  torch::serialize::InputArchive in;
  in.load_from(in_bytes);
  torch::Tensor buffer;
  in.read("momentum.0", buffer, /*is_buffer=*/true);
  return buffer;
}

// airbench94's groups (Muon on the filters, Nesterov SGD with weight decay
// on the rest) at rates that are powers of 2, so that the eager update's
// fused p - lr * d and the device-rate update's p - round(lr * d) agree bit
// for bit (at other rates they differ by a rounding, which Muon's
// orthogonalisation soon makes larger). The whitening bias falls linearly
// from 2^-6 to 0 over 2 steps and freezes mid-epoch.
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

}  // namespace

TEST_CASE("the uncaptured twin of the graphed step trains airbench94's groups as eager does",
          "[epoch][recipe]") {
  const DeviceDataset train(synthetic(kImages, 5), torch::kCPU, Normalization{});
  const Recipe recipe = make_recipe(airbench_config());
  auto run = [&](bool replayed) {
    auto t = std::make_unique<Trainee>(
        seeded("airbench94"), [&](ClassifierImpl& m) { return power_of_two_groups(recipe, m); });
    EpochOptions o;
    o.shape = epoch_shape(kImages, kBatch, /*drop_last=*/true, /*graphed=*/replayed);
    o.step = step_spec(Precision{}, recipe.loss, StepSettings{});
    o.resolutions = {24, 28};  // then 32 px
    EpochState state(torch::kCPU);
    if (replayed) state.graphed = make_uncaptured_step(t->learner, o.step, state.totals);
    std::vector<double> losses;
    for (int64_t epoch = 1; epoch <= kEpochs; ++epoch) {
      const EpochPosition at{epoch, kEpochs, 0, (epoch - 1) * kSteps};
      losses.push_back(
          train_one_epoch(t->learner, train, train.plan_epoch(true, false, 0, epoch), o, at, &state)
              .loss);
    }
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
    auto t = std::make_unique<Trainee>(seeded("net"), [](ClassifierImpl& m) {
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
  CHECK(torch::equal(first_momentum(eager->groups), first_momentum(twin->groups)));
  CHECK(max_difference(eager->model, twin->model) == 0);
}
