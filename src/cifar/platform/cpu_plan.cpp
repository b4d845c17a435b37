// cpu_plan.cpp: the rule behind the CPU plan, and its re-reading (see cpu_plan.h).
#include "cifar/platform/cpu_plan.h"

#include <ATen/Parallel.h>
#include <fmt/format.h>
#include <spdlog/spdlog.h>

#include <algorithm>
#include <cmath>
#include <utility>

namespace cifar {

CpuPlan choose_cpu_plan(const CpuRequest& r) {
  const int64_t processes = std::max<int64_t>(1, r.processes);
  const int64_t hardware = std::max<int64_t>(1, r.hardware_threads / processes);
  const int64_t physical = r.physical_cores > 0 ? r.physical_cores : r.hardware_threads;
  const int64_t cores = std::clamp<int64_t>(physical / processes, 1, hardware);
  CpuPlan plan;
  plan.cores = static_cast<int>(cores);
  if (r.threads > hardware) {
    plan.threads = static_cast<int>(hardware);
    plan.why = fmt::format("{} {} capped at the {} hardware threads this machine has", r.source,
                           r.threads, hardware);
  } else if (r.threads > 0) {
    plan.threads = static_cast<int>(r.threads);
    plan.why = r.source;
  } else {
    plan.threads = plan.cores;
    plan.follows_load = cores > 1 && processes == 1 && !r.deterministic;
    plan.why = r.deterministic ? "the physical cores, fixed by --deterministic"
               : processes > 1 ? "this process's share of the physical cores"
                               : "the physical cores other processes leave free, re-read between "
                                 "steps; --threads N fixes the count";
  }
  if (processes > 1) {
    plan.why += fmt::format("; {} processes share this machine's {} hardware threads", processes,
                            r.hardware_threads);
  }
  return plan;
}

int free_cores(int cores, double others) {
  return std::clamp(cores - static_cast<int>(std::lround(others)), 1, std::max(1, cores));
}

ThreadRule::ThreadRule(const CpuPlan& plan, CpuTimesSource cpu_times, double every_seconds)
    : cpu_times_(plan.follows_load ? std::move(cpu_times) : CpuTimesSource{}),
      cores_(plan.cores),
      threads_(plan.threads),
      every_(std::chrono::duration_cast<std::chrono::steady_clock::duration>(
          std::chrono::duration<double>(every_seconds))) {
  if (cpu_times_) last_ = cpu_times_();
}

void ThreadRule::at_boundary(std::string_view where, int64_t index) {
  if (!last_) return;
  const auto wall = std::chrono::steady_clock::now();
  if (wall < next_) return;
  const auto now = cpu_times_();
  if (!now) {  // unreadable now: the count stays
    last_.reset();
    return;
  }
  // The first window (from the start to the first step) may be short, but
  // not below the kernel's ticks; later ones are every_ long.
  const auto load = others_busy_cores(*last_, *now, first_ ? 0.05 : 0.0);
  if (!load) return;
  last_ = now;
  next_ = wall + every_;
  const bool first = std::exchange(first_, false);
  const int want = free_cores(cores_, *load);
  if (want == threads_) {
    pending_ = 0;
    return;
  }
  if (!first && std::exchange(pending_, want) != want) return;  // one reading: maybe a spike
  pending_ = 0;
  spdlog::info(
      "threads: {} -> {} at {} {}: other processes keep {:.1f} of {} cores busy (--threads N "
      "fixes the count)",
      threads_, want, where, index, *load, cores_);
  threads_ = want;
  ++changes_;
  at::set_num_threads(want);
}

}  // namespace cifar
