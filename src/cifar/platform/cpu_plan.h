// cpu_plan.h: how a run uses the CPU: its thread count, by a rule.
//
// The rule (no measuring): --threads N (else $OMP_NUM_THREADS) fixes the
// count, capped at the hardware threads. Otherwise a run takes the physical
// cores that other processes leave free (cpu_load.h), at least one: all of
// them on an idle machine, one beside a busy core on two, at any batch size
// (measured: docs/benchmarks.md, "The thread rule: the default against
// fixed counts"; a second thread is what collapses when another process
// shares the cores). ThreadRule
// re-reads that load at step boundaries, at most once a second, and moves to
// a new count after two readings in a row agree on it, only between steps,
// saying so in the log. --deterministic fixes the count at the idle
// machine's. Several processes on one machine (torchrun) each take their
// share of the cores, fixed: their siblings' work would read as load.
// (Whether training uses oneDNN is the model's and the batch's:
// resolve/machine.h's cpu_training_onednn.) The counts are applied through
// CpuSettingsGuard (guards.h), so the process's settings come back after.
#pragma once

#include <chrono>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

#include "cifar/platform/cpu_load.h"

namespace cifar {

struct CpuRequest {
  int64_t threads = 0;               // --threads N (or $OMP_NUM_THREADS); 0: the rule
  std::string source = "--threads";  // where a requested count came from, for the log
  int64_t batch_size = 1;
  int64_t hardware_threads = 1;  // std::thread::hardware_concurrency(): the cap
  int64_t physical_cores = 0;    // physical_cores(); 0: as many as hardware threads
  int64_t processes = 1;         // processes sharing this machine (torchrun's local world)
  bool deterministic = false;
};

struct CpuPlan {
  int threads = 1;            // the count to start at
  int cores = 1;              // the physical cores the rule may use
  bool follows_load = false;  // the count follows the others' load (ThreadRule)
  std::string why;            // one line for the log
};

CpuPlan choose_cpu_plan(const CpuRequest& request);

// The physical cores that `others` busy cores leave free of `cores`, at least 1.
int free_cores(int cores, double others);

// The count while a phase runs: the plan's, or, when it follows the load,
// the rule's, re-read at step boundaries.
class ThreadRule {
 public:
  // `cpu_times`: read_cpu_times, or a test's; its first reading is taken
  // now, and the load is measured from it. `every_seconds`: of wall time
  // between readings, at least.
  ThreadRule(const CpuPlan& plan, CpuTimesSource cpu_times, double every_seconds = 1);
  int threads() const { return threads_; }
  int changes() const { return changes_; }
  // Between two steps (`where` and `index` name the next one in the log):
  // reads the load when due, and sets a new count (torch::set_num_threads)
  // once two readings in a row ask for it; the first reading, before the
  // first step, sets it at once.
  void at_boundary(std::string_view where, int64_t index);

 private:
  CpuTimesSource cpu_times_;
  std::optional<CpuTimes> last_;  // none: the count stays
  int cores_;
  int threads_;
  std::chrono::steady_clock::duration every_;
  std::chrono::steady_clock::time_point next_{};
  bool first_ = true;
  int pending_ = 0;  // the count the last reading asked for, when not the current one
  int changes_ = 0;
};

}  // namespace cifar
