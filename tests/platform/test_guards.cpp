// test_guards.cpp: process-wide settings come back, also through exceptions.
#include <catch2/catch.hpp>

#include <stdexcept>

#include "cifar/platform/cpu_plan.h"
#include "cifar/platform/guards.h"

using namespace cifar;

TEST_CASE("CpuSettingsGuard restores threads and oneDNN, also on an exception", "[guards]") {
  const int threads = torch::get_num_threads();
  const bool onednn = at::globalContext().userEnabledMkldnn();
  const int other = threads == 1 ? 2 : 1;
  try {
    const CpuSettingsGuard guard(other, !onednn);
    CHECK(torch::get_num_threads() == other);
    CHECK(at::globalContext().userEnabledMkldnn() == !onednn);
    throw std::runtime_error("boom");
  } catch (const std::runtime_error&) {
  }
  CHECK(torch::get_num_threads() == threads);
  CHECK(at::globalContext().userEnabledMkldnn() == onednn);
}

TEST_CASE("SeedGuard seeds, then gives the generator its old state back", "[guards]") {
  torch::manual_seed(123);
  const auto expected = torch::rand({4});  // what follows seed 123's first draw
  torch::manual_seed(123);
  torch::rand({4});
  {
    const SeedGuard seed(7);
    const auto a = torch::rand({4});
    torch::manual_seed(7);
    CHECK(torch::equal(a, torch::rand({4})));
  }
  const auto next = torch::rand({4});
  torch::manual_seed(123);
  torch::rand({4});
  CHECK(torch::equal(next, torch::rand({4})));
  CHECK_FALSE(torch::equal(next, expected));
}

TEST_CASE("CudaMathGuard restores cuDNN and TF32 settings", "[guards]") {
  const bool benchmark = at::globalContext().benchmarkCuDNN();
  const bool tf32 = at::globalContext().allowTF32CuBLAS();
  {
    const CudaMathGuard guard(!benchmark, !tf32);
    CHECK(at::globalContext().benchmarkCuDNN() == !benchmark);
    CHECK(at::globalContext().allowTF32CuBLAS() == !tf32);
  }
  CHECK(at::globalContext().benchmarkCuDNN() == benchmark);
  CHECK(at::globalContext().allowTF32CuBLAS() == tf32);
}

TEST_CASE("the CPU plan caps threads at the machine and says why", "[guards]") {
  const auto capped = choose_cpu_plan(1000, 128, 2);
  CHECK(capped.threads == 2);
  CHECK_THAT(capped.why, Catch::Contains("--threads 1000 capped at the 2 hardware threads"));
  CHECK(choose_cpu_plan(1, 128, 2).threads == 1);
  CHECK(choose_cpu_plan(0, 128, 2).threads == 2);
  CHECK(choose_cpu_plan(0, 4, 2).threads == 1);  // small batches: one thread
  CHECK(choose_cpu_plan(2, 4, 2).threads == 2);  // unless asked
  CHECK_FALSE(choose_cpu_plan(0, 4, 2).training_onednn);
  CHECK(choose_cpu_plan(0, 256, 2).training_onednn);
}
