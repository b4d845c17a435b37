// guards.h: process-wide LibTorch settings, changed for a scope and restored.
//
// LibTorch keeps some settings per process: the intra-op thread count,
// whether oneDNN (mkldnn) kernels are used, cuDNN benchmark mode and TF32,
// deterministic algorithms, the default random generator, and spdlog's level.
// cifar-train changes them only through
// these guards, which put back what they found when they go, also when an
// exception passes through.
#pragma once

#include <ATen/Context.h>
#include <spdlog/spdlog.h>
#include <torch/torch.h>

#include <cstdint>

namespace cifar {

// Intra-op threads and oneDNN, for one phase of a run (CPU only).
class CpuSettingsGuard {
 public:
  CpuSettingsGuard(int threads, bool onednn);
  ~CpuSettingsGuard();
  CpuSettingsGuard(const CpuSettingsGuard&) = delete;
  CpuSettingsGuard& operator=(const CpuSettingsGuard&) = delete;

 private:
  int old_threads_;
  bool old_onednn_;
};

// cuDNN benchmark mode, and TF32 for float32 matrix products and
// convolutions on CUDA (the per-backend precision settings, which replace the
// deprecated allowTF32CuBLAS/CuDNN; torch.backends.cuda.matmul.fp32_precision
// and torch.backends.cudnn.conv.fp32_precision in Python): "tf32" or "ieee".
// Only settings: nothing runs on a GPU.
class CudaMathGuard {
 public:
  CudaMathGuard(bool cudnn_benchmark, bool tf32);
  ~CudaMathGuard();
  CudaMathGuard(const CudaMathGuard&) = delete;
  CudaMathGuard& operator=(const CudaMathGuard&) = delete;

 private:
  bool old_benchmark_;
  at::Float32Precision old_matmul_;
  at::Float32Precision old_conv_;
};

// Deterministic algorithms (torch.use_deterministic_algorithms(True), and
// cuDNN's and oneDNN's deterministic modes) for --deterministic; an operation that has no
// deterministic implementation then throws, naming itself. Off: unchanged.
class DeterministicGuard {
 public:
  explicit DeterministicGuard(bool on);
  ~DeterministicGuard();
  DeterministicGuard(const DeterministicGuard&) = delete;
  DeterministicGuard& operator=(const DeterministicGuard&) = delete;

 private:
  bool on_;
  bool old_algorithms_;
  bool old_warn_only_;
  bool old_cudnn_;
  bool old_mkldnn_;
};

// Keeps a device's default generator's state (the CPU's unless told):
// whatever draws from it inside the scope (a thread probe's forward pass, the
// warm-up of a captured step) leaves the run's random stream as it was.
class GeneratorStateGuard {
 public:
  explicit GeneratorStateGuard(const torch::Device& device = torch::kCPU);
  ~GeneratorStateGuard();
  GeneratorStateGuard(const GeneratorStateGuard&) = delete;
  GeneratorStateGuard& operator=(const GeneratorStateGuard&) = delete;

 private:
  at::Generator generator_;
  torch::Tensor old_state_;
};

// Seeds the default CPU generator (and CUDA's, through torch::manual_seed);
// restores the CPU generator's state when it goes.
class SeedGuard {
 public:
  explicit SeedGuard(uint64_t seed);

 private:
  GeneratorStateGuard keep_;  // saved before seeding, put back when the guard goes
};

// spdlog's level for a scope (ranks other than 0 log warnings only).
class LogLevelGuard {
 public:
  explicit LogLevelGuard(spdlog::level::level_enum level);
  ~LogLevelGuard();
  LogLevelGuard(const LogLevelGuard&) = delete;
  LogLevelGuard& operator=(const LogLevelGuard&) = delete;

 private:
  spdlog::level::level_enum old_;
};

}  // namespace cifar
