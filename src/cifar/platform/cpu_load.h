// cpu_load.h: how many cores other processes keep busy, and how many
// physical cores the machine has: what the thread rule (cpu_plan.h) reads.
//
// On 2 cores, two threads are the fastest when the machine is idle and
// collapse when another process holds a core (every parallel region waits for
// the thread that lost its core; docs/benchmarks.md). The load of the others
// is measured, not guessed: the busy time of every CPU (/proc/stat: user,
// nice, system, irq, softirq, steal) minus this process's own CPU time
// (getrusage), over a window of wall time. Reading both costs a few
// microseconds; where /proc/stat cannot be read (not Linux) there is no
// reading, and the rule keeps its first count.
#pragma once

#include <chrono>
#include <cstdint>
#include <functional>
#include <optional>

namespace cifar {

// Cumulative CPU times at one moment.
struct CpuTimes {
  double busy_seconds = 0;  // all CPUs together, every process
  double own_seconds = 0;   // this process (user + system, all threads)
  std::chrono::steady_clock::time_point at;
};

// Now; nullopt where /proc/stat is unreadable or not as expected.
std::optional<CpuTimes> read_cpu_times();
using CpuTimesSource = std::function<std::optional<CpuTimes>()>;

// Cores that other processes kept busy between `a` and `b` (0 = idle beside
// us); nullopt when the window is shorter than `min_seconds` (the kernel
// counts in ticks of 10 ms: a shorter window says little).
std::optional<double> others_busy_cores(const CpuTimes& a, const CpuTimes& b,
                                        double min_seconds = 0.2);

// The physical cores (distinct "physical id" and "core id" pairs of
// /proc/cpuinfo), at most `hardware_threads`; `hardware_threads` where
// /proc/cpuinfo does not say.
int64_t physical_cores(int64_t hardware_threads);

}  // namespace cifar
