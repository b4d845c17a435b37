// thread_tuner.h: the CPU thread count chosen by measuring, and re-checked.
//
// A fixed thread count is wrong somewhere: on 2 cores, net at batch 256
// trains about 1.7x faster on two threads than on one when the machine is
// idle, and about 10x slower when another process keeps one core busy (every
// parallel region waits for the thread that lost its core). So when the user
// did not fix the count, training measures: a short trial of each candidate
// (one thread, half the cores, all), then the fastest until the next re-check.
// CPU work is synchronous, so the wall time between two steps is the step.
//
//   trial(c) for each candidate: 1 warm-up step, then steps until
//            trial_seconds have passed (at least one, at most trial_steps)
//   keep the fastest for recheck_seconds, or 9x as long as the round of
//            trials took if that is longer (so trials stay within a tenth of
//            the training time even when a step takes seconds), then trial again
//
// The tuner only calls torch::set_num_threads; CpuSettingsGuard (guards.h)
// restores the process's setting after the epoch.
#pragma once

#include <chrono>
#include <cstdint>
#include <functional>
#include <string>
#include <vector>

namespace cifar {

struct ThreadTunerOptions {
  double trial_seconds = 0.3;
  int64_t trial_steps = 50;
  double recheck_seconds = 15;
  double abort_ratio = 4;
};

class ThreadTuner {
 public:
  using Clock = std::chrono::steady_clock;
  // `candidates` in trial order, fewest threads first, e.g. {1, 2}. `set_threads` is
  // torch::set_num_threads unless a test passes its own; `now` likewise.
  explicit ThreadTuner(std::vector<int> candidates, ThreadTunerOptions options = {},
                       std::function<void(int)> set_threads = {},
                       std::function<Clock::time_point()> now = {});

  // Called after every training step with the images it took.
  void after_step(int64_t images);
  // Called when an epoch starts: the time since the last step (evaluation,
  // checkpoints) was no step, and a trial under way starts over.
  void restart_clock();
  // The count in use now: set it when an epoch starts (the tuner sets it
  // itself only when it switches).
  int threads() const { return candidates_[current_]; }
  // One line for the log after each trial round: what was measured, what won.
  const std::string& last_decision() const { return decision_; }

  // Candidates for a machine with `cores` hardware threads: 1, cores / 2, cores.
  static std::vector<int> candidates_for(int cores);

 private:
  void start_trial(size_t index);
  void reset_trial();  // the current trial's counts and clocks start afresh
  void finish_round();
  void end_trial(double rate, bool stopped);

  std::vector<int> candidates_;
  ThreadTunerOptions options_;
  std::function<void(int)> set_threads_;
  std::function<Clock::time_point()> now_;
  std::vector<double> rates_;  // images/s of each candidate in this round
  std::vector<bool> stopped_;  // its trial ended early: it collapsed
  size_t current_ = 0;
  bool trialling_ = true;
  bool warmed_up_ = false;
  int64_t trial_images_ = 0;
  int64_t trial_steps_ = 0;
  Clock::time_point phase_start_;
  Clock::time_point last_step_;
  Clock::time_point round_start_;  // when this round's first trial began
  double keep_seconds_ = 0;        // how long the round's choice is kept
  std::string decision_;
};

}  // namespace cifar
