// thread_choice.cpp: a fixed thread count, or the tuner's choice, logged once.
#include "cifar/train/thread_choice.h"

#include <fmt/format.h>
#include <spdlog/spdlog.h>

namespace cifar {

ThreadChoice::ThreadChoice(const CpuPlan& plan, bool on_cpu) : plan_(plan) {
  if (plan.tune && on_cpu) tuner_.emplace(ThreadTuner::candidates_for(plan.threads));
}

ThreadChoice::ThreadChoice(const CpuPlan& plan, ThreadTuner tuner)
    : plan_(plan), tuner_(std::move(tuner)) {}

void ThreadChoice::before_step(int64_t global_step, int64_t images,
                               const ThreadTuner::Probe& probe) {
  if (!tuner_ || !tuner_->due()) return;
  const int before = tuner_->threads();
  const bool first = tuner_->rounds() == 0;
  if (first) {
    spdlog::info(
        "threads: timing the first batch's forward and backward at each thread count (probes "
        "that change nothing) before the first step");
  }
  tuner_->run_round(images, probe);
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

void ThreadChoice::after_step() {
  if (tuner_) tuner_->after_step();
}

void ThreadChoice::restart_clock() {
  if (tuner_) tuner_->restart_clock();
}

std::string ThreadChoice::summary() const {
  if (!tuner_) return "";
  const double probes = tuner_->probe_seconds();
  const double steps = tuner_->step_seconds();
  return fmt::format(
      "thread probes: {} round{}, {:.2f} s beside {:.1f} s of training steps ({:.1f}%); the "
      "steps ran on {}",
      tuner_->rounds(), tuner_->rounds() == 1 ? "" : "s", probes, steps,
      steps > 0 ? 100 * probes / steps : 0.0,
      changed_at_ < 0
          ? fmt::format("{} thread{} throughout", first_choice_, first_choice_ == 1 ? "" : "s")
          : fmt::format("{} threads until step {}, then the re-checks' choices", first_choice_,
                        changed_at_));
}

}  // namespace cifar
