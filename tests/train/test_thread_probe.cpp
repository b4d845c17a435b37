// test_thread_probe.cpp: measuring thread counts never changes a run's
// numbers. A probe leaves the model, its gradients, buffers, momentum and the
// random stream as they were; a run whose tuner probes 1 and 2 threads ends
// with the weights of a run at the count it settles on; a re-check that moves
// to another count says from which step; a remembered count (the thread
// cache) gives the weights a measured one gives.
#include <catch2/catch.hpp>

#include <ATen/CPUGeneratorImpl.h>

#include <fstream>
#include <map>
#include <sstream>

#include "cifar/platform/guards.h"
#include "cifar/train/epoch.h"
#include "cifar/train/thread_choice.h"
#include "cifar/train/thread_probe.h"
#include "test_helpers.h"
#include "train/lone_learner.h"

using namespace cifar;
using cifar::test::LoneLearner;
using cifar::test::synthetic;
using Clock = ThreadTuner::Clock;

namespace {
// A seeded model with its SGD (momentum 0.9), as one process trains it.
LoneLearner alone(const std::string& name, uint64_t seed) {
  torch::manual_seed(seed);
  return LoneLearner(make_model(ModelOptions(name)), 0.01, 0.9);
}

std::vector<torch::Tensor> copies(const std::vector<torch::Tensor>& ts) {
  std::vector<torch::Tensor> out;
  for (const auto& t : ts) out.push_back(t.defined() ? t.clone() : t);
  return out;
}
std::vector<torch::Tensor> grads_of(torch::nn::Module& m) {
  std::vector<torch::Tensor> out;
  for (const auto& p : m.parameters()) out.push_back(p.grad());
  return out;
}
bool same(const std::vector<torch::Tensor>& a, const std::vector<torch::Tensor>& b) {
  if (a.size() != b.size()) return false;
  for (size_t i = 0; i < a.size(); ++i) {
    if (a[i].defined() != b[i].defined()) return false;
    if (a[i].defined() && !torch::equal(a[i], b[i])) return false;
  }
  return true;
}
std::string momentum_bytes(const ParamGroups& groups) {
  torch::serialize::OutputArchive archive;
  groups.save(archive);
  std::ostringstream out;
  archive.save_to(out);
  return out.str();
}

// Trains `epochs` epochs of 512 synthetic images at batch 64 with oneDNN,
// each epoch at `choice`'s count, probing through it; returns the weights.
std::vector<torch::Tensor> train_run(ThreadChoice& choice, int epochs) {
  const DeviceDataset data(synthetic(512, 11), torch::kCPU, Normalization{});
  LoneLearner a = alone("net", 3);
  EpochOptions options;
  options.shape = epoch_shape(512, 64, /*drop_last=*/false, /*graphed=*/false);
  options.before_step = [&](int64_t step, int64_t images,
                            const std::function<void(int64_t)>& probe) {
    choice.before_step(step, images, probe);
  };
  options.after_step = [&](int64_t) { choice.after_step(); };
  EpochPosition at{1, epochs, 0, 0};
  for (; at.epoch <= epochs; ++at.epoch) {
    choice.restart_clock();
    const CpuSettingsGuard cpu(choice.threads(), /*onednn=*/true);
    const auto stats =
        train_one_epoch(a.learner, data, data.plan_epoch(true, true, 5, at.epoch), options, at);
    at.global_step += stats.steps;
  }
  return copies(a.model->parameters());
}
}  // namespace

TEST_CASE("a thread probe leaves the model, gradients, buffers and momentum as they were",
          "[thread_probe]") {
  const DeviceDataset data(synthetic(16, 4), torch::kCPU, Normalization{});
  LoneLearner a =
      alone("resnet18", 1);  // BatchNorm: running statistics that a forward pass updates
  a.model->train();
  const Batch batch = data.batch(data.plan_epoch(false, false, 0, 1), 0, 8);
  RunningTotals totals(torch::kCPU);
  auto step = make_eager_step(a.learner, {}, totals);
  step->run(batch, 0);  // gradients and momentum exist
  step->run(batch, 1);
  const auto params = copies(a.model->parameters());
  const auto grads = copies(grads_of(*a.model));
  const auto buffers = copies(a.model->buffers());
  const auto momentum = momentum_bytes(a.groups);
  const auto random = at::detail::getDefaultCPUGenerator().get_state();
  const auto loss_sum = totals.loss_sum.clone();
  const auto batch_images = batch.images.clone();

  // The whole batch, then a slice of it (the tuner probes large batches on
  // their first images), then more images than the batch has (the whole).
  for (const int64_t images : {8, 3, 100}) {
    INFO("probe of " << images << " images");
    probe_step(*a.model, batch, {}, images);

    CHECK(same(copies(a.model->parameters()), params));
    CHECK(same(copies(grads_of(*a.model)), grads));
    CHECK(same(copies(a.model->buffers()), buffers));
    CHECK(momentum_bytes(a.groups) == momentum);
    CHECK(torch::equal(at::detail::getDefaultCPUGenerator().get_state(), random));
    CHECK(torch::equal(totals.loss_sum, loss_sum));
    CHECK(torch::equal(batch.images, batch_images));
  }
}

TEST_CASE("a run that probes 1 and 2 threads ends with the weights of a run at its choice",
          "[thread_probe]") {
  // The control: without oneDNN's thread-count dependence this test could not fail.
  CpuPlan fixed1{.threads = 1, .tune = false, .why = "test"};
  CpuPlan fixed2{.threads = 2, .tune = false, .why = "test"};
  ThreadChoice one(fixed1, false), two(fixed2, false);
  const auto at_one = train_run(one, 2);
  const auto at_two = train_run(two, 2);
  REQUIRE_FALSE(same(at_one, at_two));

  // A fake clock on which one thread is twice as fast: probes at 1 and 2 in
  // every round (a re-check after 20 ms of fake training, doubling while the
  // count stays), 1 chosen each time. Probes take 16 of the 64 images: a
  // sliced probe changes the run's numbers no more than a whole one.
  Clock::time_point now{};
  std::map<int, int> probes_at;
  const auto clock = [&] {
    now += std::chrono::milliseconds(torch::get_num_threads() == 1 ? 10 : 20);
    return now;
  };
  const auto set_threads = [&](int n) {
    torch::set_num_threads(n);
    ++probes_at[n];
  };
  ThreadTuner tuner(
      {1, 2},
      {.trial_seconds = 0.03, .probe_images = 16, .recheck_seconds = 0.02, .keep_factor = 0},
      set_threads, clock);
  ThreadChoice tuned(CpuPlan{.threads = 2, .tune = true, .why = "test"}, std::move(tuner));
  const auto weights = train_run(tuned, 2);
  INFO("trials of 1: " << probes_at[1] << ", of 2: " << probes_at[2]);
  CHECK(probes_at[2] >= 3);  // several rounds, each trying 2 threads too
  CHECK(tuned.threads() == 1);
  CHECK(tuned.changed_at() == -1);
  CHECK(same(weights, at_one));
}

TEST_CASE("a re-check that moves to another count says from which step", "[thread_probe]") {
  Clock::time_point now{};
  std::map<int, double> ms{{1, 20.0}, {2, 10.0}};
  int threads = 2;
  ThreadTuner tuner(
      {1, 2}, {}, [&](int n) { threads = n; }, [&] { return now; });
  ThreadChoice choice(CpuPlan{.threads = 2, .tune = true, .why = "test"}, std::move(tuner));
  const auto probe = [&](int64_t) {
    now += std::chrono::milliseconds(static_cast<int>(ms[threads]));
  };
  int64_t step = 0;
  for (; step < 2000; ++step) {
    if (step == 1000) ms = {{1, 20.0}, {2, 200.0}};  // a neighbour takes a core
    choice.before_step(step, 256, probe);
    probe(256);  // the step
    choice.after_step();
  }
  CHECK(choice.threads() == 1);
  CHECK(choice.changed_at() > 1000);
  CHECK(choice.changed_at() < 1100);  // the next re-check, 15 s of training later
  CHECK_THAT(choice.summary(),
             Catch::Contains("2 threads until step " + std::to_string(choice.changed_at())));
}

TEST_CASE("a run ends with the same weights whether the thread cache is empty, filled or damaged",
          "[thread_probe][thread_cache]") {
  const cifar::test::TempDir dir;
  const auto file = dir.path() / "threads.json";
  ThreadChoice one(CpuPlan{.threads = 1, .tune = false, .why = "test"}, false);
  ThreadChoice two(CpuPlan{.threads = 2, .tune = false, .why = "test"}, false);
  const auto at_one = train_run(one, 2);
  REQUIRE_FALSE(same(at_one, train_run(two, 2)));  // the count shows in the weights

  // A fake machine on which one thread is twice as fast (not the plan's
  // count, 2), idle beside the run.
  Clock::time_point now{};
  const auto tuned = [&] {
    ThreadTuner tuner(
        {1, 2}, {.trial_seconds = 0.03, .probe_images = 16},
        [&](int n) { torch::set_num_threads(n); },
        [&] {
          now += std::chrono::milliseconds(torch::get_num_threads() == 1 ? 10 : 20);
          return now;
        });
    const auto idle = [&]() -> std::optional<CpuTimes> {
      now += std::chrono::milliseconds(100);  // the data load, and the steps between readings
      return CpuTimes{.busy_seconds = 0, .own_seconds = 0, .at = now};
    };
    return ThreadChoice(CpuPlan{.threads = 2, .tune = true, .why = "test"}, std::move(tuner),
                        {.cache_file = file,
                         .case_key = "train | net | batch 64",
                         .load_check_seconds = 0,
                         .cpu_times = idle});
  };
  const auto counted = [&](ThreadChoice& choice) { return train_run(choice, 2); };

  ThreadChoice empty = tuned();  // measures, chooses 1, remembers it
  const auto first = counted(empty);
  CHECK_FALSE(empty.remembered());
  CHECK(empty.threads() == 1);
  REQUIRE(ThreadCache(file).find("train | net | batch 64", 0.0));

  ThreadChoice filled = tuned();  // starts at the remembered 1, no probes
  const auto second = counted(filled);
  CHECK(filled.remembered());
  CHECK(filled.probe_seconds() == 0);
  CHECK_THAT(filled.summary(), Catch::Contains("0 rounds") && Catch::Contains("remembered"));

  std::ofstream(file) << "{ damaged";
  ThreadChoice damaged = tuned();  // ignores the file, measures again
  const auto third = counted(damaged);
  CHECK_FALSE(damaged.remembered());
  CHECK(ThreadCache(file).note().empty());  // rewritten

  CHECK(same(first, at_one));
  CHECK(same(second, at_one));
  CHECK(same(third, at_one));
}
