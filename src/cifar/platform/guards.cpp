// guards.cpp: save, set and restore.
#include "cifar/platform/guards.h"

#include <ATen/CPUGeneratorImpl.h>
#include <ATen/Context.h>

#include <mutex>

namespace cifar {

CpuSettingsGuard::CpuSettingsGuard(int threads, bool onednn)
    : old_threads_(torch::get_num_threads()), old_onednn_(at::globalContext().userEnabledMkldnn()) {
  if (threads != old_threads_) torch::set_num_threads(threads);
  at::globalContext().setUserEnabledMkldnn(onednn);
}

CpuSettingsGuard::~CpuSettingsGuard() {
  if (torch::get_num_threads() != old_threads_) torch::set_num_threads(old_threads_);
  at::globalContext().setUserEnabledMkldnn(old_onednn_);
}

CudaMathGuard::CudaMathGuard(bool cudnn_benchmark, bool tf32)
    : old_benchmark_(at::globalContext().benchmarkCuDNN()),
      old_tf32_cublas_(at::globalContext().allowTF32CuBLAS()),
      old_tf32_cudnn_(at::globalContext().allowTF32CuDNN()) {
  at::globalContext().setBenchmarkCuDNN(cudnn_benchmark);
  at::globalContext().setAllowTF32CuBLAS(tf32);
  at::globalContext().setAllowTF32CuDNN(tf32);
}

CudaMathGuard::~CudaMathGuard() {
  at::globalContext().setBenchmarkCuDNN(old_benchmark_);
  at::globalContext().setAllowTF32CuBLAS(old_tf32_cublas_);
  at::globalContext().setAllowTF32CuDNN(old_tf32_cudnn_);
}

DeterministicGuard::DeterministicGuard(bool on)
    : on_(on),
      old_algorithms_(at::globalContext().deterministicAlgorithms()),
      old_warn_only_(at::globalContext().deterministicAlgorithmsWarnOnly()),
      old_cudnn_(at::globalContext().deterministicCuDNN()),
      old_mkldnn_(at::globalContext().deterministicMkldnn()) {
  if (!on_) return;
  at::globalContext().setDeterministicAlgorithms(true, /*warn_only=*/false);
  at::globalContext().setDeterministicCuDNN(true);
  at::globalContext().setDeterministicMkldnn(true);
}

DeterministicGuard::~DeterministicGuard() {
  if (!on_) return;
  at::globalContext().setDeterministicAlgorithms(old_algorithms_, old_warn_only_);
  at::globalContext().setDeterministicCuDNN(old_cudnn_);
  at::globalContext().setDeterministicMkldnn(old_mkldnn_);
}

GeneratorStateGuard::GeneratorStateGuard()
    : old_state_(at::detail::getDefaultCPUGenerator().get_state()) {}

GeneratorStateGuard::~GeneratorStateGuard() {
  at::Generator generator = at::detail::getDefaultCPUGenerator();
  std::lock_guard<std::mutex> lock(generator.mutex());
  generator.set_state(old_state_);
}

SeedGuard::SeedGuard(uint64_t seed) {
  // keep_ already holds the old state; torch::manual_seed takes the generator's lock itself.
  torch::manual_seed(seed);
}

LogLevelGuard::LogLevelGuard(spdlog::level::level_enum level) : old_(spdlog::get_level()) {
  spdlog::set_level(level);
}

LogLevelGuard::~LogLevelGuard() {
  spdlog::set_level(old_);
}

}  // namespace cifar
