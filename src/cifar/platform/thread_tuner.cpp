// thread_tuner.cpp: trials of each thread count, then the fastest (see thread_tuner.h).
#include "cifar/platform/thread_tuner.h"

#include <fmt/format.h>
#include <torch/torch.h>

#include <algorithm>

namespace cifar {

ThreadTuner::ThreadTuner(std::vector<int> candidates, ThreadTunerOptions options,
                         std::function<void(int)> set_threads,
                         std::function<Clock::time_point()> now)
    : candidates_(std::move(candidates)),
      options_(options),
      set_threads_(set_threads ? std::move(set_threads) : std::function<void(int)>([](int n) {
        torch::set_num_threads(n);
      })),
      now_(now ? std::move(now) : std::function<Clock::time_point()>(&Clock::now)),
      rates_(candidates_.size(), 0.0),
      stopped_(candidates_.size(), false) {
  TORCH_CHECK(!candidates_.empty(), "ThreadTuner needs at least one candidate");
  phase_start_ = last_step_ = round_start_ = now_();  // the first trial's count is set by
                                                      // whoever starts the epoch: threads()
}

std::vector<int> ThreadTuner::candidates_for(int cores) {
  std::vector<int> out;
  for (int c : {1, cores / 2, cores}) {
    if (c >= 1 && std::find(out.begin(), out.end(), c) == out.end()) out.push_back(c);
  }
  return out;
}

void ThreadTuner::start_trial(size_t index) {
  if (index == 0) round_start_ = now_();
  current_ = index;
  trialling_ = true;
  set_threads_(candidates_[index]);
  reset_trial();
}

void ThreadTuner::reset_trial() {
  warmed_up_ = false;
  trial_images_ = 0;
  trial_steps_ = 0;
  phase_start_ = last_step_ = now_();
}

void ThreadTuner::restart_clock() {
  // Timing only: the count itself is set by whoever starts the epoch (threads()).
  if (trialling_) {
    reset_trial();  // the trial under way starts over, warm-up included
  } else {
    last_step_ = now_();  // a kept count's re-check time runs on
  }
}

void ThreadTuner::end_trial(double rate, bool stopped) {
  rates_[current_] = rate;
  stopped_[current_] = stopped;
  if (current_ + 1 < candidates_.size()) {
    start_trial(current_ + 1);
  } else {
    finish_round();
  }
}

void ThreadTuner::after_step(int64_t images) {
  const auto now = now_();
  const double elapsed = std::chrono::duration<double>(now - phase_start_).count();
  const double step_seconds = std::chrono::duration<double>(now - last_step_).count();
  last_step_ = now;
  if (!trialling_) {
    if (elapsed >= keep_seconds_) start_trial(0);
    return;
  }
  // Collapsed (a neighbour holds a core this count needs): stop after this step.
  const double best =
      current_ == 0 ? 0.0 : *std::max_element(rates_.begin(), rates_.begin() + current_);
  const double step_rate = step_seconds > 0 ? static_cast<double>(images) / step_seconds : 0.0;
  if (best > 0 && step_rate * options_.abort_ratio < best) {
    end_trial(step_rate, true);
    return;
  }
  if (!warmed_up_) {  // the first step after a switch pays for it: not counted
    warmed_up_ = true;
    phase_start_ = now;
    return;
  }
  trial_images_ += images;
  ++trial_steps_;
  if (elapsed < options_.trial_seconds && trial_steps_ < options_.trial_steps) return;
  end_trial(elapsed > 0 ? static_cast<double>(trial_images_) / elapsed : 0.0, false);
}

void ThreadTuner::finish_round() {
  const auto best =
      static_cast<size_t>(std::max_element(rates_.begin(), rates_.end()) - rates_.begin());
  decision_ = "threads measured:";
  for (size_t i = 0; i < candidates_.size(); ++i) {
    decision_ += fmt::format(" {} -> {:.0f} img/s{}{}", candidates_[i], rates_[i],
                             stopped_[i] ? " (stopped after one step)" : "",
                             i + 1 < candidates_.size() ? "," : "");
  }
  // Trials cost steps at slower counts: keep them to a tenth of the time.
  const double round_seconds = std::chrono::duration<double>(now_() - round_start_).count();
  keep_seconds_ = std::max(options_.recheck_seconds, 9 * round_seconds);
  decision_ +=
      fmt::format("; using {} until the next check in {:.0f} s", candidates_[best], keep_seconds_);
  current_ = best;
  trialling_ = false;
  set_threads_(candidates_[best]);
  phase_start_ = now_();
}

}  // namespace cifar
