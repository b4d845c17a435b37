// thread_choice.h: the CPU thread count while training, fixed, remembered or
// measured.
//
// With --threads (or $OMP_NUM_THREADS) or --deterministic the count is fixed
// and nothing below happens. Otherwise, on the CPU at batches over 8
// (cpu_plan.h), before the first step:
//   - a case this machine has measured before, at about the same load from
//     other processes (the thread cache, platform/thread_cache.h), starts at
//     the remembered count with no probes;
//   - else a ThreadTuner times the candidate counts on probes that change
//     nothing (thread_probe.h), within a budget: a run of too few steps for
//     the smallest round (a warm-up and a probe per count) skips it with no
//     probe at all; otherwise two probes estimate the run's training time,
//     and the round may cost
//     share_remembered of it (its result is remembered for later runs) or
//     share_alone without a cache; shorter trials fit a small budget, and a
//     run too short for even one probe per count trains at the count the
//     others' load leaves room for (the largest candidate no larger than
//     the cores they leave free: all cores on an idle machine);
//     the round's result goes into the cache.
// While training, the load of other processes is read every
// load_check_seconds (cpu_load.h): a change of half a core or more, in two
// readings in a row, asks for a round, which comes once the training since
// the last round is 9x that round's time, and is budgeted as the first one
// on the training left (dropped when that cannot pay); without a remembered
// count the tuner's own re-checks go on.
// Every real step runs at the chosen count: on an idle machine the weights
// are those of a run with --threads set to that count, whatever the cache
// holds, as long as it holds what this machine measures. A re-check that
// moves to another count warns, once, that from that step the run's numbers
// differ from a run at a fixed count.
#pragma once

#include <chrono>
#include <cstdint>
#include <filesystem>
#include <optional>
#include <string>

#include "cifar/platform/cpu_load.h"
#include "cifar/platform/cpu_plan.h"
#include "cifar/platform/thread_cache.h"
#include "cifar/platform/thread_tuner.h"

namespace cifar {

struct ThreadChoiceOptions {
  std::filesystem::path cache_file;  // the thread cache; empty: none
  std::string case_key;              // this run's case (ThreadCase::key)
  int64_t steps = 0;                 // training steps this run takes; 0: unknown (no budget)
  double share_remembered = 0.25;    // of the expected training, for a round the cache keeps
  double share_alone = 0.05;         // ... for a round only this run uses
  double load_check_seconds = 1;     // wall time between readings of the others' load
  CpuTimesSource cpu_times;          // read_cpu_times, or a test's; none: no load readings
};

class ThreadChoice {
 public:
  ThreadChoice(const CpuPlan& plan, bool on_cpu, ThreadChoiceOptions options = {});
  // With a tuner of the caller's (a test's fake clock).
  ThreadChoice(const CpuPlan& plan, ThreadTuner tuner, ThreadChoiceOptions options = {});

  int threads() const { return tuner_ ? tuner_->threads() : plan_.threads; }
  bool tuning() const { return tuner_.has_value(); }
  // The run's case and the steps it takes, once known (before the first step).
  void set_run(std::string case_key, int64_t steps) {
    options_.case_key = std::move(case_key);
    options_.steps = steps;
  }
  // Before each training step (the run's 0-based `global_step`, of `images`
  // images): the start (above) before the first, a round when one is due.
  void before_step(int64_t global_step, int64_t images, const ThreadTuner::Probe& probe);
  // After each training step.
  void after_step();
  // At each epoch's start: evaluation between epochs is no training step.
  void restart_clock();
  // The first global step run at another count than the first choice
  // (-1: none), and one line on the time probes took.
  int64_t changed_at() const { return changed_at_; }
  bool remembered() const { return remembered_; }
  double probe_seconds() const { return tuner_ ? tuner_->probe_seconds() : 0; }
  std::string summary() const;

 private:
  void read_start_load();
  std::optional<RememberedThreads> remembered_case() const;
  bool start_remembered(const std::optional<RememberedThreads>& hit);
  int load_prior() const;
  void skip_round(const std::string& why, bool kept);
  // The trial seconds the first round can pay for (-1: full trials); nullopt:
  // none. A probe's time comes from `rates` (img/s per count) where they
  // hold the count, else from two probes.
  std::optional<double> first_round_trials(int64_t images, const ThreadTuner::Probe& probe,
                                           const std::map<int, double>* rates = nullptr);
  void run_round(int64_t global_step, int64_t images, const ThreadTuner::Probe& probe,
                 double trial_seconds);
  void watch_load();
  std::optional<double> later_round_trials();
  std::optional<CpuTimes> sample() const;

  CpuPlan plan_;
  std::optional<ThreadTuner> tuner_;
  ThreadChoiceOptions options_;
  std::optional<ThreadCache> cache_;
  bool started_ = false;
  bool remembered_ = false;  // started at a remembered count
  bool skipped_ = false;     // too short a run for a round
  std::optional<CpuTimes> last_sample_;
  std::optional<double> start_load_;      // the others' load before the first step
  std::optional<double> reference_load_;  // ... when the count in use was chosen
  std::chrono::steady_clock::time_point next_check_{};
  int first_choice_ = 0;
  int64_t changed_at_ = -1;
  int64_t steps_done_ = 0;  // training steps this run
  int load_changes_ = 0;    // readings in a row away from the reference load
};

}  // namespace cifar
