// test_thread_rule.cpp: the thread rule in training. On an idle machine a
// default run ends with the weights of a run at --threads N, N the physical
// cores; when the load changes, the count changes between two steps, never
// inside one.
#include <catch2/catch.hpp>

#include <vector>

#include "cifar/platform/cpu_plan.h"
#include "cifar/platform/guards.h"
#include "cifar/train/epoch.h"
#include "test_helpers.h"
#include "train/lone_learner.h"

using namespace cifar;
using cifar::test::LoneLearner;
using cifar::test::synthetic;

namespace {
// Others' CPU time as the test sets it, a second a reading.
struct FakeLoad {
  double others = 0;
  CpuTimes at{};
  CpuTimesSource source() {
    return [this]() -> std::optional<CpuTimes> {
      at.at += std::chrono::seconds(1);
      at.busy_seconds += others;
      return at;
    };
  }
};

struct Run {
  std::vector<torch::Tensor> weights;
  std::vector<int> threads;  // the count each step ran at
};

// 2 epochs of 512 synthetic images at batch 64 with oneDNN, at `rule`'s
// count; `each_step` is called after every step with its 0-based index.
Run train_run(ThreadRule& rule, const std::function<void(int64_t)>& each_step = {}) {
  const DeviceDataset data(synthetic(512, 11), torch::kCPU, Normalization{});
  torch::manual_seed(3);
  LoneLearner a(make_model(ModelOptions("net")), 0.01, 0.9);
  Run run;
  EpochOptions options;
  options.shape = epoch_shape(512, 64, /*drop_last=*/false, /*graphed=*/false);
  options.before_step = [&](int64_t step) { rule.at_boundary("step", step); };
  options.after_step = [&](int64_t) {
    run.threads.push_back(at::get_num_threads());
    if (each_step) each_step(static_cast<int64_t>(run.threads.size()) - 1);
  };
  EpochPosition at{1, 2, 0, 0};
  for (; at.epoch <= 2; ++at.epoch) {
    const CpuSettingsGuard cpu(rule.threads(), /*onednn=*/true);
    at.global_step +=
        train_one_epoch(a.learner, data, data.plan_epoch(true, true, 5, at.epoch), options, at)
            .steps;
  }
  for (const auto& p : a.model->parameters()) run.weights.push_back(p.detach().clone());
  return run;
}

bool same(const std::vector<torch::Tensor>& a, const std::vector<torch::Tensor>& b) {
  if (a.size() != b.size()) return false;
  for (size_t i = 0; i < a.size(); ++i) {
    if (!torch::equal(a[i], b[i])) return false;
  }
  return true;
}

CpuPlan plan_of(int threads, bool follows) {
  CpuPlan plan;
  plan.threads = threads;
  plan.cores = 2;
  plan.follows_load = follows;
  return plan;
}
}  // namespace

TEST_CASE("on an idle machine the rule's run has the weights of a run at --threads 2",
          "[thread_rule]") {
  FakeLoad none;
  ThreadRule one(plan_of(1, false), none.source()), two(plan_of(2, false), none.source());
  const Run at_one = train_run(one);
  const Run at_two = train_run(two);
  // The control: oneDNN's sums depend on the thread count, so this can fail.
  REQUIRE_FALSE(same(at_one.weights, at_two.weights));

  FakeLoad idle;
  idle.others = 0.1;
  ThreadRule rule(plan_of(2, true), idle.source(), /*every_seconds=*/0);
  const Run by_rule = train_run(rule);
  CHECK(rule.changes() == 0);
  CHECK(same(by_rule.weights, at_two.weights));
}

TEST_CASE("a load that changes mid-epoch changes the count between steps", "[thread_rule]") {
  FakeLoad load;
  ThreadRule rule(plan_of(2, true), load.source(), /*every_seconds=*/0);
  // A neighbour takes a core after step 2 (of 8 in the first epoch): the
  // readings before steps 3 and 4 see it, so step 4 is the first at 1 thread.
  const Run run = train_run(rule, [&](int64_t step) {
    if (step == 2) load.others = 1.0;
  });
  REQUIRE(run.threads.size() == 16);
  for (size_t s = 0; s < run.threads.size(); ++s) {
    INFO("step " << s);
    CHECK(run.threads[s] == (s < 4 ? 2 : 1));
  }
  CHECK(rule.changes() == 1);
}
