// thread_choice.h: the CPU thread count while training, fixed or measured.
//
// With --threads (or $OMP_NUM_THREADS) the count is fixed. Otherwise, on the
// CPU at batches over 8 (cpu_plan.h), a ThreadTuner tries the candidate
// counts on real training steps and keeps the fastest, logging each new
// choice once (re-checks that keep the same count log at debug level).
#pragma once

#include <cstdint>
#include <optional>
#include <string>

#include "cifar/platform/cpu_plan.h"
#include "cifar/platform/thread_tuner.h"

namespace cifar {

class ThreadChoice {
 public:
  ThreadChoice(const CpuPlan& plan, bool on_cpu);

  int threads() const { return tuner_ ? tuner_->threads() : plan_.threads; }
  bool tuning() const { return tuner_.has_value(); }
  // After each training step, with the images it took.
  void after_step(int64_t images);
  // At each epoch's start: evaluation between epochs is no training step.
  void restart_clock();

 private:
  CpuPlan plan_;
  std::optional<ThreadTuner> tuner_;
  std::string last_said_;
  int last_threads_ = 0;
};

}  // namespace cifar
