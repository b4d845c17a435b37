// test_epoch.cpp: the training loop learns, and evaluation counts what the
// model predicts (checked against predictions computed here, independently).
#include <catch2/catch.hpp>

#include <ATen/autocast_mode.h>

#include <csignal>

#include "cifar/infer/evaluate.h"
#include "cifar/platform/interrupt.h"
#include "cifar/train/epoch.h"
#include "test_helpers.h"
#include "train/lone_learner.h"

using namespace cifar;
using cifar::test::LoneLearner;
using cifar::test::synthetic;

namespace {
EpochOptions options_for(int64_t n, int64_t batch) {
  EpochOptions o;
  o.shape = epoch_shape(n, batch, /*drop_last=*/false, /*graphed=*/false);
  return o;
}
}  // namespace

TEST_CASE("train_one_epoch lowers the loss on a learnable task", "[epoch]") {
  const DeviceDataset train(synthetic(512, 1), torch::kCPU, Normalization{});
  const DeviceDataset test(synthetic(200, 2), torch::kCPU, Normalization{});
  torch::manual_seed(0);
  LoneLearner a(make_model(ModelOptions("net")), 0.01, 0.9);
  auto& model = a.model;
  const auto before = evaluate(*model, test, 100);
  std::vector<double> losses;
  for (int64_t epoch = 1; epoch <= 6; ++epoch) {
    const auto stats = train_one_epoch(a.learner, train, train.plan_epoch(true, false, 0, epoch),
                                       options_for(512, 16), EpochPosition{epoch, 6, 0, 0});
    CHECK(stats.images == 512);
    CHECK(stats.steps == 32);
    losses.push_back(stats.loss);
  }
  const auto after = evaluate(*model, test, 100);
  INFO("losses " << losses.front() << " -> " << losses.back());
  CHECK(losses.back() < 0.5 * losses.front());
  CHECK(after.loss < before.loss);
  CHECK(after.accuracy() > 0.8);
}

TEST_CASE("an epoch resumed mid-way runs only the remaining steps", "[epoch]") {
  const DeviceDataset train(synthetic(100, 3), torch::kCPU, Normalization{});
  LoneLearner a(make_model(ModelOptions("net")), 0.01);
  const auto stats = train_one_epoch(a.learner, train, train.plan_epoch(true, false, 0, 1),
                                     options_for(100, 16), EpochPosition{1, 1, 4, 4});
  CHECK(stats.steps == 7);          // ceil(100 / 16)
  CHECK(stats.images == 100 - 64);  // steps 4, 5 and 6 (the last one partial)
}

TEST_CASE("evaluate agrees with predictions computed independently", "[epoch]") {
  const auto data = synthetic(50, 3);
  const Normalization norm;
  const DeviceDataset test(data, torch::kCPU, norm);
  torch::manual_seed(5);
  // A few steps of training, so the predictions are not all one class.
  LoneLearner a(make_model(ModelOptions("net")), 0.05, 0.9);
  auto& model = a.model;
  for (int64_t e = 1; e <= 3; ++e) {
    train_one_epoch(a.learner, test, test.plan_epoch(true, false, 0, e), options_for(50, 10),
                    EpochPosition{e, 3, 0, 0});
  }
  const auto r = evaluate(*model, test, 7);  // a batch size that leaves a remainder

  // The same, by hand: normalise, one forward pass, argmax, count.
  model->eval();
  torch::NoGradGuard no_grad;
  const auto mean = torch::tensor({norm.mean[0], norm.mean[1], norm.mean[2]}).view({1, 3, 1, 1});
  const auto std = torch::tensor({norm.std[0], norm.std[1], norm.std[2]}).view({1, 3, 1, 1});
  const auto x = ((data.images.to(torch::kFloat) / 255.0 - mean) / std).to(torch::kFloat);
  const auto logits = model->forward(x);
  const auto pred = logits.argmax(1);
  std::vector<int64_t> confusion(100, 0);
  int64_t correct = 0;
  for (int64_t i = 0; i < 50; ++i) {
    const int64_t t = data.labels[i].item<int64_t>();
    const int64_t p = pred[i].item<int64_t>();
    ++confusion[static_cast<size_t>(t * 10 + p)];
    correct += t == p;
  }
  const double loss = torch::nn::functional::cross_entropy(logits, data.labels).item<double>();
  CHECK(r.total == 50);
  CHECK(r.confusion == confusion);
  CHECK(r.correct == correct);
  CHECK(r.correct > 5);  // the model learnt something, so the counts are not trivial
  CHECK(r.loss == Approx(loss).epsilon(1e-4));
}

TEST_CASE("a non-finite loss stops training with a clear message", "[epoch]") {
  const DeviceDataset train(synthetic(64, 4), torch::kCPU, Normalization{});
  LoneLearner a(make_model(ModelOptions("net")), 0.1);
  {
    torch::NoGradGuard no_grad;
    a.model->named_parameters()["fc3.bias"].fill_(std::numeric_limits<float>::quiet_NaN());
  }
  EpochOptions options = options_for(64, 16);
  options.step.non_finite_hint = "Lower --lr";  // the resolve step's (test_ignored_options.cpp)
  CHECK_THROWS_WITH(
      train_one_epoch(a.learner, train, train.plan_epoch(true, false, 0, 1), options,
                      EpochPosition{}),
      Catch::Contains("loss became NaN") && Catch::EndsWith("kept as they were. Lower --lr"));
}

TEST_CASE("bf16 autocast trains on the CPU and restores the autocast state", "[epoch]") {
  const DeviceDataset train(synthetic(64, 6), torch::kCPU, Normalization{});
  torch::manual_seed(0);
  LoneLearner a(make_model(ModelOptions("net")), 0.01, 0.9);
  auto& model = a.model;
  auto o = options_for(64, 16);
  o.step.precision.amp = AmpMode::kBf16;
  const auto stats =
      train_one_epoch(a.learner, train, train.plan_epoch(true, false, 0, 1), o, EpochPosition{});
  CHECK(std::isfinite(stats.loss));
  CHECK_FALSE(at::autocast::is_autocast_enabled(at::kCPU));
  CHECK(model->named_parameters()["fc3.weight"].dtype() == torch::kFloat);
}

TEST_CASE("an epoch cut by an interrupt and resumed reports the whole epoch's figures", "[epoch]") {
  const DeviceDataset train(synthetic(100, 3), torch::kCPU, Normalization{});
  const EpochPlan plan = train.plan_epoch(true, false, 0, 1);
  torch::manual_seed(0);
  LoneLearner straight(make_model(ModelOptions("net")), 0.01);
  const EpochStats whole =
      train_one_epoch(straight.learner, train, plan, options_for(100, 16), EpochPosition{});

  torch::manual_seed(0);
  LoneLearner cut(make_model(ModelOptions("net")), 0.01);
  EpochStats first;
  {
    const InterruptGuard guard;
    EpochOptions o = options_for(100, 16);
    int64_t steps = 0;
    o.after_step = [&](int64_t) {
      if (++steps == 3) std::raise(SIGINT);  // Ctrl-C during the third step
    };
    first = train_one_epoch(cut.learner, train, plan, o, EpochPosition{});
  }
  REQUIRE(first.interrupted);
  EpochPosition resumed{1, 1, first.steps, first.steps};
  resumed.so_far = so_far_of(first);
  const InterruptGuard no_request;  // a new guard starts with no stop request
  const EpochStats rest = train_one_epoch(cut.learner, train, plan, options_for(100, 16), resumed);
  CHECK(rest.images == 100 - 16 * first.steps);
  const EpochStats total = add_earlier_steps(rest, resumed.so_far);
  CHECK(total.images == whole.images);
  CHECK(total.accuracy == Approx(whole.accuracy).epsilon(1e-12));
  CHECK(total.loss == Approx(whole.loss).epsilon(1e-6));
  CHECK(total.seconds == Approx(first.seconds + rest.seconds));
  // Without the earlier steps the figures would be the rest's alone.
  CHECK(add_earlier_steps(rest, EpochSoFar{}).images == rest.images);
}
