// thread_choice.cpp: a fixed thread count, a remembered one, or the tuner's
// choice within a budget, logged once (see thread_choice.h).
#include "cifar/train/thread_choice.h"

#include <fmt/format.h>
#include <spdlog/spdlog.h>

#include <algorithm>
#include <cmath>

namespace cifar {

ThreadChoice::ThreadChoice(const CpuPlan& plan, bool on_cpu, ThreadChoiceOptions options)
    : plan_(plan), options_(std::move(options)) {
  if (plan.tune && on_cpu) tuner_.emplace(ThreadTuner::candidates_for(plan.threads));
  if (tuner_) cache_.emplace(options_.cache_file);
  last_sample_ = sample();
}

ThreadChoice::ThreadChoice(const CpuPlan& plan, ThreadTuner tuner, ThreadChoiceOptions options)
    : plan_(plan), tuner_(std::move(tuner)), options_(std::move(options)) {
  cache_.emplace(options_.cache_file);
  last_sample_ = sample();
}

std::optional<CpuTimes> ThreadChoice::sample() const {
  return options_.cpu_times ? options_.cpu_times() : std::nullopt;
}

// The others' load from the choice's start to the first step (the data load).
void ThreadChoice::read_start_load() {
  const auto now = sample();
  if (last_sample_ && now) start_load_ = others_busy_cores(*last_sample_, *now, 0.05);
  last_sample_ = now;
}

// The cache's entry for this case at about this load, if any.
std::optional<RememberedThreads> ThreadChoice::remembered_case() const {
  if (!cache_ || !cache_->enabled()) return std::nullopt;
  if (!cache_->note().empty()) spdlog::warn("{}", cache_->note());
  if (!start_load_) return std::nullopt;  // the load unknown: measure rather than guess
  return cache_->find(options_.case_key, *start_load_);
}

// A case measured before at about this load: its count, no round.
bool ThreadChoice::start_remembered(const std::optional<RememberedThreads>& hit) {
  if (!hit || !tuner_->start_at(hit->threads)) return false;
  remembered_ = true;
  first_choice_ = hit->threads;
  reference_load_ = start_load_;
  spdlog::info(
      "threads: {}, remembered for this case in {} (measured with other processes using {:.1f} "
      "cores, {:.1f} now): no probes; measured again if the load changes",
      hit->threads, cache_->file().string(), hit->others_load, *start_load_);
  return true;
}

// The count the others' load leaves room for: the largest candidate no
// larger than the cores they leave free (all cores when the load is unknown).
int ThreadChoice::load_prior() const {
  const auto& candidates = tuner_->candidates();
  if (!start_load_) return candidates.back();
  const double free = static_cast<double>(candidates.back()) - *start_load_;
  int prior = candidates.front();
  for (const int c : candidates) {
    if (static_cast<double>(c) <= std::max(1.0, std::round(free))) prior = c;
  }
  return prior;
}

// No round: trains at the count the load leaves room for; `why` for the log.
void ThreadChoice::skip_round(const std::string& why, bool kept) {
  skipped_ = true;
  first_choice_ = threads();
  spdlog::info(
      "threads: {} without a round of probes ({}): {}{}", threads(),
      start_load_ ? fmt::format("other processes keep {:.1f} of {} cores busy", *start_load_,
                                tuner_->candidates().back())
                  : "all cores",
      why, kept ? "" : "; with the thread cache on, a first run's measure serves the later ones");
}

std::optional<double> ThreadChoice::first_round_trials(int64_t images,
                                                       const ThreadTuner::Probe& probe,
                                                       const std::map<int, double>* rates) {
  if (options_.steps <= 0) return -1.0;
  // Start from the count the load leaves room for: the estimate below is not
  // a collapsed count's, and a run too short for a round trains there.
  tuner_->start_at(load_prior());
  const bool kept = cache_ && cache_->enabled();
  const double share = kept ? options_.share_remembered : options_.share_alone;
  const auto n = static_cast<double>(tuner_->candidates().size());
  const int64_t probed = std::min(images, tuner_->options().probe_images);
  const double step_probes =  // a probe of `probed` images costs about that share of a step
      static_cast<double>(images) / static_cast<double>(std::max<int64_t>(1, probed));
  if (share * static_cast<double>(options_.steps) * step_probes < 2 + 2 * n) {
    skip_round(fmt::format("{} steps cannot pay for the {} probes of the smallest round ({:.0f}% "
                           "of the training)",
                           options_.steps, 2 + 2 * n, 100 * share),
               kept);
    return std::nullopt;
  }
  // A probe's time: from the cache's rates when it has this count's, else
  // measured (the first forward sets things up: not representative).
  const auto rate =
      rates != nullptr ? rates->find(threads()) : std::map<int, double>::const_iterator{};
  double t = 0;
  if (rates != nullptr && rate != rates->end() && rate->second > 0) {
    t = static_cast<double>(probed) / rate->second;
  } else {
    tuner_->time_probe(images, probe);
    t = tuner_->time_probe(images, probe);
  }
  const double training = t * step_probes * static_cast<double>(options_.steps);
  const double budget = share * training - 2 * t;
  // The smallest round: a warm-up and one probe per count, fewer threads
  // slower in proportion; a count above the cores the load leaves free likely
  // collapses, and its trial stops after one probe abort_ratio times slower.
  double smallest = 0;
  for (const int c : tuner_->candidates()) {
    smallest += c > threads() && threads() < tuner_->candidates().back()
                    ? tuner_->options().abort_ratio * t
                    : 2 * t * threads() / c;
  }
  if (budget < smallest) {
    skip_round(fmt::format("this run's training, about {:.1f} s, cannot pay for one (about "
                           "{:.2f} s; a round may cost {:.0f}% of it)",
                           training, smallest, 100 * share),
               kept);
    return std::nullopt;
  }
  return std::min(tuner_->options().trial_seconds, (budget - smallest) / n);
}

void ThreadChoice::run_round(int64_t global_step, int64_t images, const ThreadTuner::Probe& probe,
                             double trial_seconds) {
  const int before = tuner_->threads();
  const bool first = first_choice_ == 0;
  if (first) {
    spdlog::info(
        "threads: timing the first batch's forward and backward at each thread count (probes "
        "that change nothing) before the first step");
  }
  const auto start = sample();
  tuner_->run_round(images, probe, trial_seconds);
  last_sample_ = sample();
  std::optional<double> load;
  if (start && last_sample_) load = others_busy_cores(*start, *last_sample_, 0.05);
  reference_load_ = load ? load : start_load_;
  if (reference_load_ && cache_ && cache_->enabled()) {
    RememberedThreads entry{.key = options_.case_key,
                            .others_load = *reference_load_,
                            .threads = tuner_->threads(),
                            .probe_seconds = tuner_->last_round_seconds()};
    for (size_t i = 0; i < tuner_->candidates().size(); ++i) {
      entry.rates[tuner_->candidates()[i]] = tuner_->rates()[i];
    }
    const std::string note = cache_->note();
    cache_->remember(entry);
    if (cache_->note() != note) spdlog::warn("{}", cache_->note());
  }
  const int now = tuner_->threads();
  if (first) first_choice_ = now;
  spdlog::log(first || now != before ? spdlog::level::info : spdlog::level::debug, "{}",
              tuner_->last_decision());
  if (first || now == before || changed_at_ >= 0) return;
  changed_at_ = global_step;
  spdlog::warn(
      "threads: a re-check moved training from {} to {} threads at step {} (the machine's load "
      "changed); from that step this run's numbers differ from a run at a fixed thread count. "
      "For repeatable runs use --threads {} or --deterministic",
      before, now, global_step, first_choice_);
}

// The others' load, read every load_check_seconds: a change asks for a round.
void ThreadChoice::watch_load() {
  if (skipped_ || !reference_load_ || !options_.cpu_times) return;
  const auto wall = std::chrono::steady_clock::now();
  if (wall < next_check_) return;
  next_check_ = wall + std::chrono::duration_cast<std::chrono::steady_clock::duration>(
                           std::chrono::duration<double>(options_.load_check_seconds));
  const auto now = sample();
  const auto load = last_sample_ && now ? others_busy_cores(*last_sample_, *now, 0) : std::nullopt;
  last_sample_ = now;
  if (!load || std::abs(*load - *reference_load_) < ThreadCache::kSameLoad) {
    load_changes_ = 0;
    return;
  }
  if (++load_changes_ < 2) return;  // two readings in a row: not a passing spike
  load_changes_ = 0;
  spdlog::debug("threads: other processes now use {:.1f} cores ({:.1f} when the count was chosen)",
                *load, *reference_load_);
  reference_load_ = load;
  tuner_->request_round();
}

void ThreadChoice::before_step(int64_t global_step, int64_t images,
                               const ThreadTuner::Probe& probe) {
  if (!tuner_) return;
  if (!started_) {
    started_ = true;
    read_start_load();
    // Whether the run can pay for a round comes first, cache or no cache: a
    // run too short to measure trains at the load's count whatever the cache
    // holds, and a longer one at the count a round would measure (remembered,
    // or measured now), so the cache never changes a run's weights.
    // (Its length from the cache's rates when the case is there: no probe.)
    const auto hit = remembered_case();
    const auto trials = first_round_trials(images, probe, hit ? &hit->rates : nullptr);
    if (!trials || start_remembered(hit)) return;
    run_round(global_step, images, probe, *trials);
    return;
  }
  watch_load();
  if (!tuner_->due()) return;
  const auto trials = later_round_trials();
  if (trials) run_round(global_step, images, probe, *trials);
}

// A round the load asked for is charged to the rest of the run as the first
// one is: shortened to fit, or dropped when the steps left cannot pay.
std::optional<double> ThreadChoice::later_round_trials() {
  if (!tuner_->requested() || options_.steps <= 0 || steps_done_ == 0) return -1.0;
  const bool kept = cache_ && cache_->enabled();
  const double share = kept ? options_.share_remembered : options_.share_alone;
  const double per_step = tuner_->step_seconds() / static_cast<double>(steps_done_);
  const double left =
      per_step * static_cast<double>(std::max<int64_t>(0, options_.steps - steps_done_));
  const auto n = static_cast<double>(tuner_->candidates().size());
  const double smallest = 2 * n * per_step;
  if (share * left < smallest) {
    tuner_->drop_request();
    spdlog::debug(
        "threads: the load changed, but the {:.1f} s of training left cannot pay for a round",
        left);
    return std::nullopt;
  }
  return std::min(tuner_->options().trial_seconds, (share * left - smallest) / n);
}

void ThreadChoice::after_step() {
  if (!tuner_) return;
  tuner_->after_step();
  ++steps_done_;
}

void ThreadChoice::restart_clock() {
  if (tuner_) tuner_->restart_clock();
}

std::string ThreadChoice::summary() const {
  if (!tuner_) return "";
  const double probes = tuner_->probe_seconds();
  const double steps = tuner_->step_seconds();
  const char* how = remembered_ ? " (the count remembered by the thread cache)"
                    : skipped_  ? " (no round: too short a run to pay for one)"
                                : "";
  return fmt::format(
      "thread probes: {} round{}, {:.2f} s beside {:.1f} s of training steps ({:.1f}%); the "
      "steps ran on {}{}",
      tuner_->rounds(), tuner_->rounds() == 1 ? "" : "s", probes, steps,
      steps > 0 ? 100 * probes / steps : 0.0,
      changed_at_ < 0
          ? fmt::format("{} thread{} throughout", first_choice_, first_choice_ == 1 ? "" : "s")
          : fmt::format("{} threads until step {}, then the re-checks' choices", first_choice_,
                        changed_at_),
      how);
}

}  // namespace cifar
