// cpu_plan.h: how a run uses the CPU: threads, and oneDNN or not, per phase.
//
// At small batches (8 or fewer) oneDNN's convolutions cost more than ATen's
// im2col + GEMM, while at large ones oneDNN is much faster (measured:
// docs/benchmarks.md). So small training batches run without oneDNN;
// evaluation, in large batches, always uses it. --threads N (else
// $OMP_NUM_THREADS) sets the thread count; otherwise batches of 8 or fewer
// train on one thread (one thread was the faster there, and a second thread
// is what collapses when another process shares the cores) and larger ones
// on all cores. The plan is applied through
// CpuSettingsGuard (guards.h), so the process's settings come back after.
#pragma once

#include <cstdint>
#include <string>

namespace cifar {

struct CpuPlan {
  int threads = 1;
  bool training_onednn = true;
  bool tune = false;  // measure thread counts while training (thread_tuner.h)
  std::string why;    // one line for the log
};

// `requested_threads` 0 means chosen here; `hardware_threads` is what the
// machine has (std::thread::hardware_concurrency()).
// `source` names where a requested count came from, for the log.
CpuPlan choose_cpu_plan(int64_t requested_threads, int64_t batch_size, int64_t hardware_threads,
                        const std::string& source = "--threads");

}  // namespace cifar
