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
      old_matmul_(
          at::globalContext().float32Precision(at::Float32Backend::CUDA, at::Float32Op::MATMUL)),
      old_conv_(
          at::globalContext().float32Precision(at::Float32Backend::CUDA, at::Float32Op::CONV)) {
  auto& context = at::globalContext();
  const auto precision = tf32 ? at::Float32Precision::TF32 : at::Float32Precision::IEEE;
  context.setBenchmarkCuDNN(cudnn_benchmark);
  context.setFloat32Precision(at::Float32Backend::CUDA, at::Float32Op::MATMUL, precision);
  context.setFloat32Precision(at::Float32Backend::CUDA, at::Float32Op::CONV, precision);
}

CudaMathGuard::~CudaMathGuard() {
  auto& context = at::globalContext();
  context.setBenchmarkCuDNN(old_benchmark_);
  context.setFloat32Precision(at::Float32Backend::CUDA, at::Float32Op::MATMUL, old_matmul_);
  context.setFloat32Precision(at::Float32Backend::CUDA, at::Float32Op::CONV, old_conv_);
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

GeneratorStateGuard::GeneratorStateGuard(const torch::Device& device)
    : generator_(at::globalContext().defaultGenerator(device)) {
  std::lock_guard<std::mutex> lock(generator_.mutex());
  old_state_ = generator_.get_state();
}

GeneratorStateGuard::~GeneratorStateGuard() {
  std::lock_guard<std::mutex> lock(generator_.mutex());
  generator_.set_state(old_state_);
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
