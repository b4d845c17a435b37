// test_distributed.cpp: the sharding rule, the c10d headers pairing (wheel +
// Debian gloo), and the collectives with two ranks as two threads of this
// process (the launcher's environment read: tests/app/test_dist_env.cpp).
// Multi-process behaviour (broadcast, averaging, a killed peer, torchrun) is
// tested by tests/cli/dist_*.sh.
#include <c10/util/Logging.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>
#include <catch2/catch.hpp>
#include <torch/csrc/distributed/c10d/ProcessGroupGloo.hpp>
#include <torch/csrc/distributed/c10d/TCPStore.hpp>

#include <future>
#include <set>
#include <thread>

#include "cifar/core/errors.h"
#include "cifar/data/shard.h"
#include "cifar/dist/distributed.h"
#include "cifar/dist/grad_averager.h"
#include "cifar/dist/nccl_backend.h"
#include "cifar/model/models.h"

using namespace cifar;

namespace {

int free_port() {
  const int fd = ::socket(AF_INET, SOCK_STREAM, 0);
  sockaddr_in addr{};
  addr.sin_family = AF_INET;
  addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  ::bind(fd, reinterpret_cast<sockaddr*>(&addr), sizeof(addr));
  socklen_t len = sizeof(addr);
  ::getsockname(fd, reinterpret_cast<sockaddr*>(&addr), &len);
  ::close(fd);
  return ntohs(addr.sin_port);
}

DistEnv two_ranks(int rank, int port) {
  return {.rank = rank,
          .world_size = 2,
          .local_rank = rank,
          .local_world_size = 2,
          .master_addr = "127.0.0.1",
          .master_port = port};
}

}  // namespace

// A port that takes connections and never answers: the store's handshake is
// given up on after --dist-timeout and 5 s, and its thread, left behind, must
// not print c10d's stack trace when it fails later (c10d stays quiet).
TEST_CASE("a store that never answers is given up on, and c10d stays quiet after", "[dist]") {
  const int fd = ::socket(AF_INET, SOCK_STREAM, 0);
  sockaddr_in addr{};
  addr.sin_family = AF_INET;
  addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  REQUIRE(::bind(fd, reinterpret_cast<sockaddr*>(&addr), sizeof(addr)) == 0);
  REQUIRE(::listen(fd, 16) == 0);  // the kernel completes connections; nobody answers
  socklen_t len = sizeof(addr);
  ::getsockname(fd, reinterpret_cast<sockaddr*>(&addr), &len);
  const int saved = FLAGS_caffe2_log_level;
  FLAGS_caffe2_log_level = 0;
  CHECK_THROWS_WITH(
      Distributed(two_ranks(1, ntohs(addr.sin_port)), torch::kCPU,
                  DistOptions{std::chrono::seconds(1), 1}),
      Catch::Contains("no answer from the store at 127.0.0.1") && Catch::Contains("within 6 s"));
  CHECK(FLAGS_caffe2_log_level >= 3);
  ::close(fd);  // the thread left behind fails now, quietly
  std::this_thread::sleep_for(std::chrono::milliseconds(500));
  FLAGS_caffe2_log_level = saved;
}

TEST_CASE("sharding gives equal disjoint shares that make up the global batches", "[dist]") {
  CHECK(per_rank_batch(256, 2) == 128);
  CHECK(per_rank_batch(4, 1) == 4);
  CHECK(batch_share_problem(256, 2).empty());
  CHECK_THROWS_AS(per_rank_batch(5, 2), std::invalid_argument);
  CHECK_THROWS_WITH(per_rank_batch(2, 4), Catch::Contains("--batch-size 2"));
  CHECK_THAT(batch_share_problem(5, 2), Catch::Contains("multiple of the 2 processes"));

  for (int64_t n : {12, 13}) {
    EpochPlan plan{torch::randperm(n, torch::kInt64), torch::randint(0, 9, {n, 2}, torch::kInt64),
                   torch::rand({n}) > 0.5};
    const int world = 2;
    const int64_t global = 4, local = per_rank_batch(global, world);
    std::vector<EpochPlan> shards;
    std::set<int64_t> seen;
    for (int r = 0; r < world; ++r) {
      shards.push_back(shard_plan(plan, r, world));
      CHECK(shards.back().order.size(0) == n / world);
      for (int64_t i = 0; i < shards.back().order.size(0); ++i) {
        CHECK(seen.insert(shards.back().order[i].item<int64_t>()).second);  // no sample twice
      }
    }
    // Step s of every rank together: the single process's batch s.
    for (int64_t s = 0; s * global + global <= n; ++s) {
      std::set<int64_t> together, single;
      for (size_t r = 0; r < static_cast<size_t>(world); ++r) {
        for (int64_t i = s * local; i < (s + 1) * local; ++i) {
          together.insert(shards[r].order[i].item<int64_t>());
          // Offsets and flips follow their samples.
          const auto pos = (plan.order == shards[r].order[i]).nonzero().item<int64_t>();
          CHECK(torch::equal(plan.offsets[pos], shards[r].offsets[i]));
          CHECK(plan.flips[pos].item<bool>() == shards[r].flips[i].item<bool>());
        }
      }
      for (int64_t i = s * global; i < (s + 1) * global; ++i) {
        single.insert(plan.order[i].item<int64_t>());
      }
      CHECK(together == single);
    }
  }
  EpochPlan plain{torch::arange(6, torch::kInt64), {}, {}};
  CHECK(torch::equal(shard_plan(plain, 0, 1).order, plain.order));
  CHECK_FALSE(shard_plan(plain, 1, 2).offsets.defined());
}

TEST_CASE("evaluation ranges cover every sample once", "[dist]") {
  for (int64_t n : {10000, 7, 1}) {
    for (int world : {1, 2, 3}) {
      int64_t next = 0;
      for (int r = 0; r < world; ++r) {
        const auto range = eval_range(n, r, world);
        CHECK(range.begin == next);
        CHECK(range.end - range.begin >= n / world);
        CHECK(range.end - range.begin <= n / world + 1);
        next = range.end;
      }
      CHECK(next == n);
    }
  }
}

// Pins the pairing the build relies on: the wheel's c10d headers with
// Debian's gloo headers, the group made only through the wheel's functions.
TEST_CASE("ProcessGroupGloo builds and all-reduces over a TCPStore", "[dist]") {
  c10d::TCPStoreOptions store_options;
  store_options.port = 0;  // any free port
  store_options.isServer = true;
  store_options.numWorkers = 1;
  store_options.timeout = std::chrono::seconds(20);
  auto store = c10::make_intrusive<c10d::TCPStore>("127.0.0.1", store_options);
  auto options = c10d::ProcessGroupGloo::Options::create(std::chrono::seconds(20));
  options->devices.push_back(c10d::ProcessGroupGloo::createDeviceForHostname("127.0.0.1"));
  auto group = c10::make_intrusive<c10d::ProcessGroupGloo>(store, 0, 1, options);
  std::vector<at::Tensor> tensors = {torch::arange(5, torch::kFloat)};
  group->allreduce(tensors)->wait();
  CHECK(torch::equal(tensors[0], torch::arange(5, torch::kFloat)));
  CHECK(group->getBackendName() == "gloo");
}

TEST_CASE("one process: every collective is a no-op", "[dist]") {
  Distributed dist(DistEnv{}, torch::kCPU);
  CHECK(dist.backend_name() == "none");
  auto t = torch::arange(3, torch::kFloat);
  dist.all_reduce_sum(t);
  CHECK(torch::equal(t, torch::arange(3, torch::kFloat)));
  Net net;
  GradientAverager averager(dist, net->parameters());
  for (auto& p : net->parameters()) p.mutable_grad() = torch::ones_like(p);
  averager.start(true);
  CHECK(averager.wait());  // the local stop flag comes back
  for (auto& p : net->parameters()) CHECK(torch::equal(p.grad(), torch::ones_like(p)));
}

TEST_CASE("two ranks in one process: broadcast, sum, bucketed mean, stop flag", "[dist]") {
  const int port = free_port();
  auto rank_main = [port](int rank) {
    torch::manual_seed(
        static_cast<uint64_t>(rank));  // different weights on each rank before the broadcast
    Distributed dist(two_ranks(rank, port), torch::kCPU, DistOptions{std::chrono::seconds(30), 1});
    Net net;
    dist.broadcast_module(*net);
    auto sum = torch::full({3}, static_cast<double>(rank + 1), torch::kInt64);
    dist.all_reduce_sum(sum);
    // Small buckets, so that they cut through tensors.
    GradientAverager averager(dist, net->parameters(), GradAveragerOptions().bucket_bytes(4000));
    for (auto& p : net->parameters()) p.mutable_grad() = torch::full_like(p, rank * 2.0);
    averager.start(/*stop_local=*/rank == 1);
    const bool stop = averager.wait();
    std::vector<torch::Tensor> flat;
    for (const auto& p : net->parameters()) flat.push_back(p.detach().reshape({-1}));
    return std::make_tuple(torch::cat(flat), sum, stop, net->parameters()[0].grad().clone(),
                           averager.bucket_count());
  };
  auto r1 = std::async(std::launch::async, rank_main, 1);
  auto [w0, s0, stop0, g0, buckets] = rank_main(0);
  auto [w1, s1, stop1, g1, buckets1] = r1.get();
  CHECK(torch::equal(w0, w1));
  CHECK(torch::equal(s0, torch::full({3}, 3, torch::kInt64)));
  CHECK(torch::equal(s1, s0));
  CHECK(stop0);
  CHECK(stop1);
  CHECK(torch::allclose(g0, torch::ones_like(g0)));  // mean of 0 and 2
  CHECK(torch::equal(g0, g1));
  CHECK(buckets > 10);
  CHECK(buckets1 == buckets);
}
