// thread_tuner.h: the CPU thread count chosen by measuring, and re-checked.
//
// A fixed thread count is wrong somewhere: on 2 cores, net at batch 256
// trains much faster on two threads than on one when the machine is idle,
// and many times slower when another process keeps one core busy (every
// parallel region waits for the thread that lost its core; figures in
// docs/benchmarks.md). So when the user
// did not fix the count, training measures. It measures with PROBES that
// change nothing (the caller's probe: forward and backward of the current
// batch, gradients and BatchNorm statistics thrown away, train/thread_probe.h),
// so that every real step runs at the chosen count: oneDNN's results depend
// on the thread count, and a run must end with the same weights as a run at
// that count fixed with --threads.
//
//   round, before the first step and whenever due():
//     for each candidate c: set c; 1 warm-up probe, then probes until
//       trial_seconds have passed (at least one, at most trial_steps); a probe
//       4x slower than the best so far stops c's trial (it collapsed). A probe
//       takes at most probe_images images of the batch (its first ones)
//     keep the preferred count (the one in use, or all cores before the first
//       round) unless another measured switch_margin faster; set it
//   a count known beforehand (start_at: remembered by thread_cache.h) skips
//     the first round: no round is due until request_round() (the caller saw
//     the machine's load change), and then only once the training since the
//     last round is keep_factor times that round's time
//   due() again after max(recheck_seconds, 9x the round's time) of training,
//     doubled for each round in a row that kept the count (a round that
//     changes it starts again from 1x): a round costs at most a tenth of the
//     training before it, and on a machine whose load stays put the rounds
//     come at 1x, 3x, 7x, 15x ... that wait, so their total time grows with
//     the log of the run's length
//
// CPU work is synchronous, so the wall time around a probe is the probe. The
// tuner only calls torch::set_num_threads; CpuSettingsGuard (guards.h)
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
  // Images in a probe, at most: larger batches are probed on their first
  // probe_images. 256 images still give every layer work enough to split
  // over 16 threads (airbench94's last convolutions, on 4x4 maps, still see
  // 256 x 16 positions), so the counts rank as on the full batch, and the
  // net-b256 recipe's probes stay whole batches; airbench94's 2000-image
  // batches probed whole made a round on 2 cores last ~23 s.
  int64_t probe_images = 256;
  double recheck_seconds = 15;  // of training time between rounds, at least
  double keep_factor = 9;       // ... and at least this many times the round's time
  double abort_ratio = 4;
  double switch_margin = 1.1;  // another count replaces the preferred one only this much faster
};

class ThreadTuner {
 public:
  using Clock = std::chrono::steady_clock;
  // `candidates` in trial order, fewest threads first, e.g. {1, 2}; the last
  // is the one in use before the first round. `set_threads` is
  // torch::set_num_threads unless a test passes its own; `now` likewise.
  explicit ThreadTuner(std::vector<int> candidates, ThreadTunerOptions options = {},
                       std::function<void(int)> set_threads = {},
                       std::function<Clock::time_point()> now = {});

  // A round of probes is due before the next step.
  bool due() const {
    if (requested_) return trained_seconds_ >= options_.keep_factor * last_round_seconds_;
    if (rounds_ == 0) return !known_;
    return trained_seconds_ >= keep_seconds_;
  }
  // Starts at `threads` (one of the candidates; false otherwise) with no
  // round due until request_round().
  bool start_at(int threads);
  // A round is wanted (the load changed); it comes once it can pay.
  void request_round() { requested_ = true; }
  bool requested() const { return requested_; }
  void drop_request() { requested_ = false; }
  // A probe: one forward and backward of the batch's first `images` images
  // that changes nothing.
  using Probe = std::function<void(int64_t images)>;
  // Runs the round before a step of `batch_images` images: `probe` of
  // min(batch_images, probe_images) images at each candidate, then sets the
  // chosen count. `trial_seconds` >= 0 replaces the options' (0: a warm-up
  // and one timed probe per count).
  void run_round(int64_t batch_images, const Probe& probe, double trial_seconds = -1);
  // The seconds of one probe at the count in use (counted as probing).
  double time_probe(int64_t batch_images, const Probe& probe);
  // Called after every training step: its time counts towards the next round.
  void after_step();
  // Called when an epoch starts: the time since the last step (evaluation,
  // checkpoints) was no training.
  void restart_clock() { last_step_ = now_(); }
  // The count in use now: set it when an epoch starts (the tuner sets it
  // itself in a round).
  int threads() const { return candidates_[current_]; }
  int rounds() const { return rounds_; }
  // Seconds spent in probes and in training steps so far.
  double probe_seconds() const { return probe_seconds_; }
  double step_seconds() const { return step_seconds_; }
  // The last round's img/s per candidate, and its length in seconds.
  const std::vector<int>& candidates() const { return candidates_; }
  const std::vector<double>& rates() const { return rates_; }
  double last_round_seconds() const { return last_round_seconds_; }
  const ThreadTunerOptions& options() const { return options_; }
  // One line for the log after each round: what was measured, what won.
  const std::string& last_decision() const { return decision_; }

  // Candidates for a machine with `cores` hardware threads: 1, cores / 2, cores.
  static std::vector<int> candidates_for(int cores);

 private:
  // images/s of `images`-image probes at candidate `index`; `stopped` when it collapsed.
  double trial(size_t index, int64_t images, const Probe& probe, double seconds, double best,
               bool& stopped);
  size_t choose(const std::vector<double>& rates) const;

  std::vector<int> candidates_;
  ThreadTunerOptions options_;
  std::function<void(int)> set_threads_;
  std::function<Clock::time_point()> now_;
  size_t current_;
  int rounds_ = 0;
  bool known_ = false;      // started at a count known beforehand
  bool requested_ = false;  // request_round() since the last round
  double last_round_seconds_ = 0;
  std::vector<double> rates_;
  double trained_seconds_ = 0;  // training time since the last round
  double keep_seconds_ = 0;     // how long the round's choice is kept
  int confirmations_ = 0;       // rounds in a row that kept the count
  double probe_seconds_ = 0;
  double step_seconds_ = 0;
  Clock::time_point last_step_;
  std::string decision_;
};

}  // namespace cifar
