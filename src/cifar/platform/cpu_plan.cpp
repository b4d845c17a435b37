// cpu_plan.cpp: the rule behind the CPU plan.
#include "cifar/platform/cpu_plan.h"

#include <fmt/format.h>

#include <algorithm>

namespace cifar {

CpuPlan choose_cpu_plan(int64_t requested_threads, int64_t batch_size, int64_t hardware_threads,
                        const std::string& source) {
  CpuPlan plan;
  const int64_t cores = std::max<int64_t>(1, hardware_threads);
  plan.training_onednn = batch_size > 8;
  if (requested_threads > cores) {
    plan.threads = static_cast<int>(cores);
    plan.why = fmt::format("{} {} capped at the {} hardware threads this machine has", source,
                           requested_threads, cores);
  } else if (requested_threads > 0) {
    plan.threads = static_cast<int>(requested_threads);
    plan.why = source;
  } else if (batch_size <= 8) {
    plan.threads = 1;
    plan.why =
        "1 thread: a batch this small gains nothing from more, and loses when cores are shared";
  } else {
    plan.threads = static_cast<int>(cores);
    plan.tune = cores > 1;
    plan.why = plan.tune ? "training measures 1, half and all of them on probes that change "
                           "nothing and keeps the fastest, re-checked every 15 s; --threads N "
                           "fixes the count"
                         : "all cores";
  }
  if (!plan.training_onednn) plan.why += "; training without oneDNN, which is slower at batch <= 8";
  return plan;
}

}  // namespace cifar
