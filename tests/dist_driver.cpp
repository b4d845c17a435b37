// dist_driver.cpp: one rank of a multi-process test of the distributed
// engine (tests/cli/dist_*.sh start it several times, by hand or under
// torchrun). Like the apps, it reads the launcher's environment and passes
// the values to the library. Each check prints what it measured and exits 0
// when it holds, 1 when it does not or a collective failed, 2 on bad usage.
#include <fmt/format.h>
#include <torch/torch.h>
#include <CLI/CLI.hpp>

#include <chrono>
#include <cstdlib>
#include <iostream>
#include <thread>

#include "cifar/app/cli.h"
#include "cifar/core/errors.h"
#include "cifar/data/cifar10.h"
#include "cifar/data/loader.h"
#include "cifar/data/shard.h"
#include "cifar/dist/distributed.h"
#include "cifar/dist/grad_averager.h"
#include "cifar/infer/evaluate.h"
#include "cifar/model/models.h"
#include "cifar/optim/optim.h"
#include "cifar/train/epoch.h"
#include "cifar/train/step.h"

using namespace cifar;

namespace {

Classifier build(const std::string& model, int64_t seed) {
  torch::manual_seed(static_cast<uint64_t>(seed));
  return make_model(ModelOptions().name(model));
}

// Rank r's gradients: randn from a generator seeded by r, so every rank can
// compute every other rank's and the expected mean without communicating.
std::vector<torch::Tensor> grads_of(const Classifier& model, int rank) {
  auto gen = at::make_generator<at::CPUGeneratorImpl>(1000 + rank);
  std::vector<torch::Tensor> grads;
  for (const auto& p : model->parameters()) grads.push_back(torch::randn(p.sizes(), gen));
  return grads;
}

void perturb_buffers(const Classifier& model, int rank) {
  torch::NoGradGuard no_grad;
  for (auto& b : model->buffers()) b.add_(rank + 1);
}

int check_broadcast(Distributed& dist, const std::string& model_name) {
  auto model = build(model_name, dist.rank());  // a different start on each rank
  perturb_buffers(model, dist.rank());
  dist.broadcast_module(*model);
  auto reference = build(model_name, 0);  // what rank 0 holds
  perturb_buffers(reference, 0);
  int64_t differ = 0, total = 0;
  auto compare = [&](const std::vector<torch::Tensor>& a, const std::vector<torch::Tensor>& b) {
    for (size_t i = 0; i < a.size(); ++i, ++total) differ += torch::equal(a[i], b[i]) ? 0 : 1;
  };
  compare(model->parameters(), reference->parameters());
  compare(model->buffers(), reference->buffers());
  fmt::print("[rank {}] broadcast: {} of {} tensors differ from rank 0's\n", dist.rank(), differ,
             total);
  return differ == 0 && total > 0 ? 0 : 1;
}

int check_average(Distributed& dist, const std::string& model_name, int64_t bucket_bytes) {
  auto model = build(model_name, 0);
  const auto params = model->parameters();
  const auto mine = grads_of(model, dist.rank());
  for (size_t i = 0; i < params.size(); ++i) params[i].mutable_grad() = mine[i].clone();
  GradientAverager averager(dist, params, GradAveragerOptions().bucket_bytes(bucket_bytes));
  averager.start(false);
  const bool stop = averager.wait();
  double max_diff = 0;
  std::vector<torch::Tensor> expected(params.size());
  for (int r = 0; r < dist.world_size(); ++r) {
    const auto theirs = grads_of(model, r);
    for (size_t i = 0; i < params.size(); ++i) {
      expected[i] = expected[i].defined() ? expected[i] + theirs[i] : theirs[i].clone();
    }
  }
  for (size_t i = 0; i < params.size(); ++i) {
    const auto diff = (params[i].grad() - expected[i] / dist.world_size()).abs().max();
    max_diff = std::max(max_diff, diff.item<double>());
  }
  fmt::print("[rank {}] average of {} ranks, {} gradient elements in {} buckets: max |diff| {:g}\n",
             dist.rank(), dist.world_size(), averager.numel(), averager.bucket_count(), max_diff);
  return max_diff <= 1e-6 && !stop ? 0 : 1;
}

// Steps of averaging until the agreed stop; rank `stop_rank` asks from
// step `stop_step` on. `fail_rank` throws at `fail_step` (a rank's own error).
int run_steps(Distributed& dist, int64_t steps, int stop_rank, int64_t stop_step, int fail_rank,
              int64_t fail_step, double sleep_s) {
  auto model = build("net", 0);
  GradientAverager averager(dist, model->parameters());
  for (int64_t step = 0; step < steps; ++step) {
    if (dist.rank() == fail_rank && step == fail_step) {
      throw std::runtime_error(fmt::format("bad data at step {} (a test failure)", step));
    }
    for (auto& p : model->parameters()) p.mutable_grad() = torch::ones_like(p);
    averager.start(dist.rank() == stop_rank && step >= stop_step);
    if (averager.wait()) {
      fmt::print("[rank {}] stopped at step {}\n", dist.rank(), step);
      return 0;
    }
    fmt::print("[rank {}] step {}\n", dist.rank(), step);
    std::fflush(stdout);
    std::this_thread::sleep_for(std::chrono::duration<double>(sleep_s));
  }
  fmt::print("[rank {}] ran {} steps\n", dist.rank(), steps);
  return 0;
}

// FNV-1a over the raw bytes of `tensors`: equal digests on two ranks mean
// bit-identical values.
uint64_t digest(const std::vector<torch::Tensor>& tensors) {
  uint64_t h = 1469598103934665603ull;
  for (const auto& t : tensors) {
    const auto c = t.detach().contiguous().cpu();
    const auto* p = static_cast<const uint8_t*>(c.data_ptr());
    for (size_t i = 0; i < c.nbytes(); ++i) h = (h ^ p[i]) * 1099511628211ull;
  }
  return h;
}

// One epoch of real training (train_one_epoch: sharded plan, broadcast of
// buffers, forward, backward, bucketed averaging, SGD) on 16 * `steps` random
// images, from a different random start on each rank, then the sharded
// evaluation, as cifar-train runs them. Prints digests of parameters and
// buffers: every rank must print the same ones, and the buffers must have
// moved from their initial values (BatchNorm statistics were updated).
int check_train(Distributed& dist, const std::string& model_name, int64_t steps) {
  auto gen = at::make_generator<at::CPUGeneratorImpl>(2000);  // the same data on every rank
  const auto random_split = [&](int64_t n) {
    return ImageSplit{torch::randint(0, 256, {n, 3, 32, 32}, gen).to(torch::kUInt8),
                      torch::randint(0, 10, {n}, gen), default_class_names()};
  };
  const DeviceDataset train_data(random_split(16 * steps), torch::kCPU, Normalization{}, false);
  const DeviceDataset test_data(random_split(40), torch::kCPU, Normalization{}, false);

  auto model = build(model_name, 100 + dist.rank());
  dist.broadcast_module(*model);
  const uint64_t initial_buffers = digest(model->buffers());
  ParamGroups groups = one_sgd_group(model->parameters(), SgdOptions().momentum(0.9),
                                     {.schedule = Schedule::kConstant, .lr = 0.05});
  GradientAverager averager(dist, model->parameters());
  GradScaler scaler(/*enabled=*/false, torch::kCPU);
  Learner trainee{*model, groups, dist, averager, scaler};
  const int64_t local_batch = per_rank_batch(16, dist.world_size());
  EpochOptions options;
  options.shape = epoch_shape(train_data.size() / dist.world_size(), local_batch,
                              /*drop_last=*/false, /*graphed=*/false);
  options.log_interval_s = 1e9;
  const EpochPlan plan =
      shard_plan(train_data.plan_epoch(true, false, 1, 1), dist.rank(), dist.world_size());
  const EpochStats stats = train_one_epoch(trainee, train_data, plan, options, EpochPosition{});
  const EvalResult eval = evaluate(*model, test_data, 16, Precision{}, 10, &dist);
  const uint64_t buffers = digest(model->buffers());
  fmt::print(
      "[rank {}] after {} steps and evaluation ({} of {} right): parameters {:016x}, buffers "
      "{:016x} ({} buffers{})\n",
      dist.rank(), stats.steps, eval.correct, eval.total, digest(model->parameters()), buffers,
      model->buffers().size(), buffers == initial_buffers ? ", unchanged" : ", updated");
  return stats.steps == steps ? 0 : 1;
}

}  // namespace

int main(int argc, char** argv) {
  CLI::App app{"One rank of a distributed-engine test (see tests/cli/dist_*.sh)"};
  std::string check = "average", model = "net";
  double timeout_s = 300, sleep_s = 0;
  int64_t bucket_bytes = 4 << 20, steps = 10, stop_step = -1, fail_step = -1;
  int stop_rank = -1, fail_rank = -1;
  app.add_option("check", check, "broadcast, average, train, steps, setup or mismatch")->required();
  app.add_option("--model", model, "net or resnet18");
  app.add_option("--dist-timeout", timeout_s, "seconds");
  app.add_option("--bucket-bytes", bucket_bytes);
  app.add_option("--steps", steps);
  app.add_option("--stop-rank", stop_rank);
  app.add_option("--stop-step", stop_step);
  app.add_option("--fail-rank", fail_rank);
  app.add_option("--fail-step", fail_step);
  app.add_option("--sleep", sleep_s, "seconds between steps");
  CLI11_PARSE(app, argc, argv);

  std::unique_ptr<Distributed> dist;
  try {
    const auto env = dist_env_from_environment();
    const auto timeout = std::chrono::milliseconds(static_cast<int64_t>(timeout_s * 1000));
    dist = std::make_unique<Distributed>(env, torch::kCPU, DistOptions{timeout, 1});
    fmt::print("[rank {}] joined: world size {}, backend {}, {} threads, store served by {}\n",
               dist->rank(), dist->world_size(), dist->backend_name(), torch::get_num_threads(),
               env.use_agent_store ? "torchrun's agent" : "rank 0");
    std::fflush(stdout);
    if (check == "broadcast") return check_broadcast(*dist, model);
    if (check == "average") return check_average(*dist, model, bucket_bytes);
    if (check == "train") return check_train(*dist, model, steps);
    if (check == "steps") {
      return run_steps(*dist, steps, stop_rank, stop_step, fail_rank, fail_step, sleep_s);
    }
    if (check == "setup") return 0;
    if (check == "mismatch") {  // a bug's collective mismatch: sizes differ by rank
      torch::Tensor t = torch::ones({(dist->rank() + 1) * 16384});
      dist->all_reduce_sum(t);
      fmt::print("[rank {}] the mismatched all-reduce returned\n", dist->rank());
      return 0;
    }
    throw UsageError("unknown check " + check);
  } catch (const UsageError& e) {
    std::cerr << "error: " << e.what() << "\n";
    return 2;
  } catch (const std::exception& e) {
    if (dist) dist->report_failure(e.what());
    std::cerr << "error: " << first_line(e.what()) << "\n";
    return 1;
  }
}
