// cpu_load.h: the machine's CPU as the thread cache sees it: its model name,
// and how many cores other processes keep busy.
//
// The thread tuner's choice depends on the load beside the run: on 2 cores,
// two threads are the fastest when the machine is idle and collapse when
// another process holds a core. So a remembered choice (thread_cache.h) is
// kept with the load it was measured at, and a run notices when the load
// changes. The load of the others is measured, not guessed: the busy time of
// every CPU (/proc/stat: user, nice, system, irq, softirq, steal) minus this
// process's own CPU time (getrusage), over a window of wall time. Reading
// both costs a few microseconds; where /proc/stat cannot be read (not
// Linux), there is no reading and callers fall back to timing alone.
#pragma once

#include <chrono>
#include <functional>
#include <optional>
#include <string>

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

// The CPU's model name (/proc/cpuinfo's "model name", else "unknown CPU").
std::string cpu_model_name();

}  // namespace cifar
