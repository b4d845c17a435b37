// thread_choice.cpp: a fixed thread count, or the tuner's choice, logged once.
#include "cifar/train/thread_choice.h"

#include <spdlog/spdlog.h>

namespace cifar {

ThreadChoice::ThreadChoice(const CpuPlan& plan, bool on_cpu) : plan_(plan) {
  if (plan.tune && on_cpu) tuner_.emplace(ThreadTuner::candidates_for(plan.threads));
}

void ThreadChoice::after_step(int64_t images) {
  if (!tuner_) return;
  tuner_->after_step(images);
  if (tuner_->last_decision() == last_said_) return;  // no new round finished
  last_said_ = tuner_->last_decision();
  const bool changed = tuner_->threads() != last_threads_;  // info only when it changes
  last_threads_ = tuner_->threads();
  spdlog::log(changed ? spdlog::level::info : spdlog::level::debug, "{}", last_said_);
}

void ThreadChoice::restart_clock() {
  if (tuner_) tuner_->restart_clock();
}

}  // namespace cifar
