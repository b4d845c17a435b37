// thread_tuner.cpp: rounds of probes at each thread count, then the fastest (see thread_tuner.h).
#include "cifar/platform/thread_tuner.h"

#include <fmt/format.h>
#include <torch/torch.h>

#include <algorithm>
#include <cmath>

namespace cifar {
namespace {
double seconds_between(ThreadTuner::Clock::time_point a, ThreadTuner::Clock::time_point b) {
  return std::chrono::duration<double>(b - a).count();
}
}  // namespace

ThreadTuner::ThreadTuner(std::vector<int> candidates, ThreadTunerOptions options,
                         std::function<void(int)> set_threads,
                         std::function<Clock::time_point()> now)
    : candidates_(std::move(candidates)),
      options_(options),
      set_threads_(set_threads ? std::move(set_threads) : std::function<void(int)>([](int n) {
        torch::set_num_threads(n);
      })),
      now_(now ? std::move(now) : std::function<Clock::time_point()>(&Clock::now)),
      current_(candidates_.empty() ? 0 : candidates_.size() - 1) {
  TORCH_CHECK(!candidates_.empty(), "ThreadTuner needs at least one candidate");
  last_step_ = now_();
}

std::vector<int> ThreadTuner::candidates_for(int cores) {
  std::vector<int> out;
  for (int c : {1, cores / 2, cores}) {
    if (c >= 1 && std::find(out.begin(), out.end(), c) == out.end()) out.push_back(c);
  }
  return out;
}

double ThreadTuner::trial(size_t index, int64_t images, const Probe& probe, double seconds,
                          double best, bool& stopped) {
  set_threads_(candidates_[index]);
  const auto rate_of = [images](double s) { return s > 0 ? static_cast<double>(images) / s : 0.0; };
  // Collapsed (a neighbour holds a core this count needs): stop after this probe.
  const auto collapsed = [&](double s) {
    return best > 0 && rate_of(s) * options_.abort_ratio < best;
  };
  auto last = now_();
  probe(images);  // the first probe after a switch pays for it: a warm-up, not counted
  auto now = now_();
  if (collapsed(seconds_between(last, now))) {
    stopped = true;
    return rate_of(seconds_between(last, now));
  }
  const auto start = now;
  int64_t probes = 0;
  double elapsed = 0;
  while (probes == 0 || (elapsed < seconds && probes < options_.trial_steps)) {
    last = now;
    probe(images);
    now = now_();
    ++probes;
    elapsed = seconds_between(start, now);
    if (collapsed(seconds_between(last, now))) {
      stopped = true;
      return rate_of(seconds_between(last, now));
    }
  }
  return rate_of(elapsed / static_cast<double>(probes));
}

// The preferred count (the one in use) unless another is switch_margin faster.
size_t ThreadTuner::choose(const std::vector<double>& rates) const {
  const auto best =
      static_cast<size_t>(std::max_element(rates.begin(), rates.end()) - rates.begin());
  return rates[current_] * options_.switch_margin >= rates[best] ? current_ : best;
}

bool ThreadTuner::start_at(int threads) {
  const auto it = std::find(candidates_.begin(), candidates_.end(), threads);
  if (it == candidates_.end()) return false;
  current_ = static_cast<size_t>(it - candidates_.begin());
  set_threads_(threads);
  known_ = true;
  return true;
}

double ThreadTuner::time_probe(int64_t batch_images, const Probe& probe) {
  const auto start = now_();
  probe(std::min(batch_images, options_.probe_images));
  const double s = seconds_between(start, now_());
  probe_seconds_ += s;
  last_step_ = now_();  // probing is not training
  return s;
}

void ThreadTuner::run_round(int64_t batch_images, const Probe& probe, double trial_seconds) {
  const int64_t images = std::min(batch_images, options_.probe_images);
  const double seconds = trial_seconds >= 0 ? trial_seconds : options_.trial_seconds;
  const auto start = now_();
  std::vector<double> rates(candidates_.size(), 0.0);
  std::vector<bool> stopped(candidates_.size(), false);
  double best = 0;
  for (size_t i = 0; i < candidates_.size(); ++i) {
    bool collapsed = false;
    rates[i] = trial(i, images, probe, seconds, best, collapsed);
    stopped[i] = collapsed;
    best = std::max(best, rates[i]);
  }
  const size_t before = current_;
  current_ = choose(rates);
  rates_ = rates;
  requested_ = false;
  known_ = false;
  set_threads_(candidates_[current_]);
  confirmations_ = rounds_ > 0 && current_ == before ? confirmations_ + 1 : 0;
  const auto end = now_();
  const double round_seconds = seconds_between(start, end);
  probe_seconds_ += round_seconds;
  last_round_seconds_ = round_seconds;
  // Each round in a row that kept the count doubles the wait (thread_tuner.h).
  keep_seconds_ = std::ldexp(
      std::max(options_.recheck_seconds, options_.keep_factor * round_seconds), confirmations_);
  trained_seconds_ = 0;
  last_step_ = end;  // probing is not training
  ++rounds_;
  decision_ = "threads measured:";
  for (size_t i = 0; i < candidates_.size(); ++i) {
    decision_ += fmt::format(" {} -> {:.0f} img/s{}{}", candidates_[i], rates[i],
                             stopped[i] ? " (stopped after one probe)" : "",
                             i + 1 < candidates_.size() ? "," : "");
  }
  decision_ += fmt::format(
      "; using {} until the next check in {:.0f} s of training (probes so far {:.2f} s, "
      "training {:.1f} s)",
      candidates_[current_], keep_seconds_, probe_seconds_, step_seconds_);
}

void ThreadTuner::after_step() {
  const auto now = now_();
  const double s = seconds_between(last_step_, now);
  last_step_ = now;
  trained_seconds_ += s;
  step_seconds_ += s;
}

}  // namespace cifar
