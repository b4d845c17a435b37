// thread_choice.h: the CPU thread count while training, fixed or measured.
//
// With --threads (or $OMP_NUM_THREADS) or --deterministic the count is fixed.
// Otherwise, on the CPU at batches over 8 (cpu_plan.h), a ThreadTuner times
// the candidate counts on probes that change nothing (thread_probe.h), before
// the first step and at each re-check, and every real step runs at the
// chosen count: on an idle machine the weights are those of a run with
// --threads set to that count. Each new choice is logged once (re-checks
// that keep the count log at debug level); a re-check that moves to another
// count (the machine's load changed) warns, once, that from that step the
// run's numbers differ from a run at a fixed count.
#pragma once

#include <cstdint>
#include <functional>
#include <optional>
#include <string>

#include "cifar/platform/cpu_plan.h"
#include "cifar/platform/thread_tuner.h"

namespace cifar {

class ThreadChoice {
 public:
  ThreadChoice(const CpuPlan& plan, bool on_cpu);
  // With a tuner of the caller's (a test's fake clock).
  ThreadChoice(const CpuPlan& plan, ThreadTuner tuner);

  int threads() const { return tuner_ ? tuner_->threads() : plan_.threads; }
  bool tuning() const { return tuner_.has_value(); }
  // Before each training step (the run's 0-based `global_step`, of `images`
  // images): when a round is due, times `probe` (of as many images as the
  // tuner asks for) at each candidate count.
  void before_step(int64_t global_step, int64_t images, const ThreadTuner::Probe& probe);
  // After each training step.
  void after_step();
  // At each epoch's start: evaluation between epochs is no training step.
  void restart_clock();
  // The first global step run at another count than the first round chose
  // (-1: none), and one line on the time probes took.
  int64_t changed_at() const { return changed_at_; }
  std::string summary() const;

 private:
  CpuPlan plan_;
  std::optional<ThreadTuner> tuner_;
  int first_choice_ = 0;
  int64_t changed_at_ = -1;
};

}  // namespace cifar
