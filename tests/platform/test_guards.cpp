// test_guards.cpp: process-wide settings come back, also through exceptions.
#include <catch2/catch.hpp>

#include <stdexcept>
#include <string>
#include <vector>

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

namespace {
// Collects LibTorch's warnings (TORCH_WARN) while alive.
struct TorchWarnings final : c10::WarningHandler {
  std::vector<std::string> seen;
  void process(const c10::Warning& warning) override { seen.push_back(warning.msg()); }
};
}  // namespace

TEST_CASE("CudaMathGuard sets cuDNN benchmark and TF32, through the current API, and restores them",
          "[guards]") {
  using at::Float32Backend;
  using at::Float32Op;
  using at::Float32Precision;
  auto& context = at::globalContext();
  TorchWarnings warnings;
  const c10::WarningUtils::WarningHandlerGuard collect(&warnings);
  const bool benchmark = context.benchmarkCuDNN();
  const auto matmul = context.float32Precision(Float32Backend::CUDA, Float32Op::MATMUL);
  const auto conv = context.float32Precision(Float32Backend::CUDA, Float32Op::CONV);
  for (const bool tf32 : {true, false}) {
    INFO("tf32 " << tf32);
    {
      const CudaMathGuard guard(!benchmark, tf32);
      const auto want = tf32 ? Float32Precision::TF32 : Float32Precision::IEEE;
      CHECK(context.benchmarkCuDNN() == !benchmark);
      CHECK(context.float32Precision(Float32Backend::CUDA, Float32Op::MATMUL) == want);
      CHECK(context.float32Precision(Float32Backend::CUDA, Float32Op::CONV) == want);
    }
    CHECK(context.benchmarkCuDNN() == benchmark);
    CHECK(context.float32Precision(Float32Backend::CUDA, Float32Op::MATMUL) == matmul);
    CHECK(context.float32Precision(Float32Backend::CUDA, Float32Op::CONV) == conv);
  }
  // The deprecated getters and setters (allowTF32CuBLAS, ...) warn, once.
  for (const auto& w : warnings.seen) INFO("LibTorch warned: " << w);
  CHECK(warnings.seen.empty());
}
