// test_cpu_plan.cpp: the thread rule: --threads fixes the count (capped at
// the machine), any batch takes the physical cores
// other processes leave free; ThreadRule follows that load between steps,
// after two readings in a row, and reads it at most as often as asked.
#include <catch2/catch.hpp>

#include <thread>

#include "cifar/platform/cpu_plan.h"
#include "cifar/platform/guards.h"

using namespace cifar;

namespace {
CpuRequest request(int64_t threads, int64_t batch, int64_t hardware, int64_t physical = 0) {
  CpuRequest r;
  r.threads = threads;
  r.batch_size = batch;
  r.hardware_threads = hardware;
  r.physical_cores = physical;
  return r;
}

// CPU times as a test sets them: each reading is a second later, with
// `others` cores busy beside this process during that second.
struct FakeLoad {
  double others = 0;
  int readings = 0;
  bool readable = true;
  CpuTimes at{};
  CpuTimesSource source() {
    return [this]() -> std::optional<CpuTimes> {
      ++readings;
      if (!readable) return std::nullopt;
      at.at += std::chrono::seconds(1);
      at.busy_seconds += others;
      return at;
    };
  }
};

CpuPlan following(int cores) {
  CpuPlan plan;
  plan.threads = cores;
  plan.cores = cores;
  plan.follows_load = true;
  return plan;
}
}  // namespace

TEST_CASE("the CPU plan: --threads fixes the count, capped at the machine", "[cpu_plan]") {
  const auto capped = choose_cpu_plan(request(1000, 128, 2));
  CHECK(capped.threads == 2);
  CHECK_FALSE(capped.follows_load);
  CHECK_THAT(capped.why, Catch::Contains("--threads 1000 capped at the 2 hardware threads"));
  CHECK(choose_cpu_plan(request(1, 128, 2)).threads == 1);
  CHECK(choose_cpu_plan(request(2, 4, 2)).threads == 2);          // small batches too, when asked
  CHECK(choose_cpu_plan(request(16, 128, 16, 8)).threads == 16);  // above the physical cores
  CHECK_FALSE(choose_cpu_plan(request(2, 128, 2)).follows_load);
}

TEST_CASE("the CPU plan's rule: the physical cores at any batch size, following the load",
          "[cpu_plan]") {
  const auto small = choose_cpu_plan(request(0, 4, 16, 8));
  CHECK(small.threads == 8);  // batch 4 too (measured faster: docs/benchmarks.md)
  CHECK(small.follows_load);
  const auto large = choose_cpu_plan(request(0, 9, 16, 8));
  CHECK(large.threads == 8);
  CHECK(large.cores == 8);
  CHECK(large.follows_load);
  CHECK(choose_cpu_plan(request(0, 256, 4)).threads == 4);  // physical unknown: the hardware's
  CHECK_FALSE(choose_cpu_plan(request(0, 256, 1)).follows_load);  // one core: nothing to follow

  CpuRequest fixed = request(0, 256, 16, 8);
  fixed.deterministic = true;
  CHECK(choose_cpu_plan(fixed).threads == 8);
  CHECK_FALSE(choose_cpu_plan(fixed).follows_load);
  CHECK_THAT(choose_cpu_plan(fixed).why, Catch::Contains("fixed by --deterministic"));

  CpuRequest shared = request(0, 256, 16, 8);  // torchrun: 4 processes on this machine
  shared.processes = 4;
  CHECK(choose_cpu_plan(shared).threads == 2);
  CHECK_FALSE(choose_cpu_plan(shared).follows_load);
  shared.threads = 8;
  CHECK(choose_cpu_plan(shared).threads == 4);  // capped at its share of the hardware threads
}

TEST_CASE("free cores: the physical cores less the others' load, rounded, at least one",
          "[cpu_plan]") {
  CHECK(free_cores(2, 0.0) == 2);
  CHECK(free_cores(2, 0.4) == 2);
  CHECK(free_cores(2, 0.7) == 1);
  CHECK(free_cores(2, 3.0) == 1);
  CHECK(free_cores(8, 2.2) == 6);
  const auto hardware = static_cast<int64_t>(std::thread::hardware_concurrency());
  CHECK(physical_cores(hardware) >= 1);
  CHECK(physical_cores(hardware) <= hardware);
}

TEST_CASE("the thread rule sets the load's count before the first step, then needs two readings",
          "[cpu_plan]") {
  const CpuSettingsGuard keep(2, true);
  FakeLoad load;
  load.others = 1.0;  // a busy core beside the run from the start
  ThreadRule rule(following(2), load.source(), /*every_seconds=*/0);
  rule.at_boundary("step", 0);
  CHECK(rule.threads() == 1);  // at once: no step ran at 2
  CHECK(at::get_num_threads() == 1);
  load.others = 0.0;  // the neighbour stops
  rule.at_boundary("step", 1);
  CHECK(rule.threads() == 1);  // one reading may be a passing dip
  load.others = 1.0;
  rule.at_boundary("step", 2);
  load.others = 0.0;
  rule.at_boundary("step", 3);
  CHECK(rule.threads() == 1);  // not two in a row
  rule.at_boundary("step", 4);
  CHECK(rule.threads() == 2);
  CHECK(at::get_num_threads() == 2);
  CHECK(rule.changes() == 2);
}

TEST_CASE(
    "the thread rule reads nothing when fixed, stays when unreadable, and waits between reads",
    "[cpu_plan]") {
  const CpuSettingsGuard keep(2, true);
  FakeLoad load;
  load.others = 1.0;
  CpuPlan fixed = following(2);
  fixed.follows_load = false;
  ThreadRule still(fixed, load.source(), 0);
  still.at_boundary("step", 0);
  CHECK(load.readings == 0);
  CHECK(still.threads() == 2);

  FakeLoad gone;
  ThreadRule blind(following(2), gone.source(), 0);
  gone.readable = false;
  gone.others = 1.0;
  for (int s = 0; s < 3; ++s) blind.at_boundary("step", s);
  CHECK(blind.threads() == 2);
  CHECK(gone.readings == 2);  // the first unreadable reading stops the readings

  FakeLoad slow;
  ThreadRule hourly(following(2), slow.source(), 3600);
  slow.others = 1.0;
  for (int s = 0; s < 5; ++s) hourly.at_boundary("step", s);
  CHECK(slow.readings == 2);  // the start's, then one an hour
  CHECK(hourly.threads() == 1);
}
