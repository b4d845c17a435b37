// cpu_plan.h: how a run uses the CPU: threads, and oneDNN or not, per phase.
//
// Measured on 2 cores (full epochs of net, images/s): at batch 8 or fewer,
// oneDNN's convolutions cost more than ATen's im2col + GEMM, while at batch
// 256 oneDNN is about twice as fast. So small training batches run without
// oneDNN; evaluation, in large batches, always uses it. --threads N sets the
// thread count; 0 means all cores. The plan is applied through
// CpuSettingsGuard (guards.h), so the process's settings come back after.
#pragma once

#include <cstdint>
#include <string>

namespace cifar {

struct CpuPlan {
  int threads = 1;
  bool training_onednn = true;
  std::string why;  // one line for the log
};

// `requested_threads` 0 means chosen here; `hardware_threads` is what the
// machine has (std::thread::hardware_concurrency()).
// `source` names where a requested count came from, for the log.
CpuPlan choose_cpu_plan(int64_t requested_threads, int64_t batch_size, int64_t hardware_threads,
                        const std::string& source = "--threads");

}  // namespace cifar
