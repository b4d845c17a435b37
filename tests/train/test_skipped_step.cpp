// test_skipped_step.cpp: under --amp fp16, a training step whose gradients
// are not finite is skipped: weights and momentum stay as they were.
#include <catch2/catch.hpp>

#include <limits>

#include "cifar/optim/grad_scaler.h"
#include "cifar/train/step.h"
#include "test_helpers.h"
#include "train/lone_learner.h"
#include "train/momentum_of.h"

using namespace cifar;
using cifar::test::momentum_of;

namespace {
constexpr float kInfinity = std::numeric_limits<float>::infinity();
}  // namespace

TEST_CASE("a skipped step leaves the weights and the momentum untouched", "[grad_scaler]") {
  torch::manual_seed(0);
  test::LoneLearner lone(make_model(ModelOptions("net")), 0.05, 0.9, /*loss_scaling=*/true);
  Classifier& model = lone.model;
  ParamGroups& groups = lone.groups;
  GradScaler& scaler = lone.scaler;
  RunningTotals totals(torch::kCPU);
  Precision fp16;
  fp16.amp = AmpMode::kFp16;
  fp16.loss_scaling = true;
  const auto step =
      make_eager_step(lone.learner, {.precision = fp16, .sum_loss = false, .settings = {}}, totals);
  const DeviceDataset data(test::synthetic(32, 1), torch::kCPU, Normalization{});
  const Batch good = data.batch(data.plan_epoch(false, false, 0, 1), 0, 32);

  step->run(good, 0);  // momentum is no longer zero
  REQUIRE(scaler.skipped_steps() == 0);
  const size_t n = model->parameters().size();
  std::vector<torch::Tensor> weights;
  for (const auto& p : model->parameters()) weights.push_back(p.detach().clone());
  const std::vector<torch::Tensor> momentum = momentum_of(groups, n);
  REQUIRE(momentum[0].abs().sum().item<double>() > 0);

  Batch bad{good.images.clone(), good.labels};
  bad.images[3][1][5][7] = kInfinity;  // one pixel: every gradient becomes inf or NaN
  step->run(bad, 1);
  CHECK(scaler.skipped_steps() == 1);
  CHECK(scaler.scale_value() == 32768);
  const std::vector<torch::Tensor> momentum_after = momentum_of(groups, n);
  for (size_t i = 0; i < n; ++i) {
    INFO("parameter " << i);
    CHECK(torch::equal(model->parameters()[i], weights[i]));
    CHECK(torch::equal(momentum_after[i], momentum[i]));
  }

  step->run(good, 2);  // the next good step does move them
  CHECK(scaler.skipped_steps() == 1);
  CHECK_FALSE(torch::equal(model->parameters()[0], weights[0]));
}
