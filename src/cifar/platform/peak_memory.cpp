// peak_memory.cpp: a memory listener that profiles nothing (peak_memory.h).
#include "cifar/platform/peak_memory.h"

#include <c10/util/ThreadLocalDebugInfo.h>
#include <torch/csrc/profiler/orchestration/observer.h>

#include <algorithm>
#include <memory>

namespace cifar {
namespace {

// A profiler state (what the allocator looks for under PROFILER_STATE) that
// is disabled, so that nothing takes it for a running profiler, but wants
// the memory reports: it sums them, keeping the most.
struct PeakListener final : torch::profiler::impl::ProfilerStateBase {
  PeakListener()
      : ProfilerStateBase(
            torch::profiler::impl::ProfilerConfig(torch::profiler::impl::ProfilerState::Disabled)) {
  }
  void reportMemoryUsage(void* /*ptr*/, int64_t bytes, size_t /*total_allocated*/,
                         size_t /*total_reserved*/, c10::Device device) override {
    if (!device.is_cpu()) return;
    held += bytes;  // negative for a free
    peak = std::max(peak, held);
  }
  bool memoryProfilingEnabled() const override { return true; }
  torch::profiler::impl::ActiveProfilerType profilerType() override {
    return torch::profiler::impl::ActiveProfilerType::NONE;
  }
  int64_t held = 0;
  int64_t peak = 0;
};

}  // namespace

int64_t peak_cpu_tensor_bytes(const std::function<void()>& work) {
  const auto listener = std::make_shared<PeakListener>();
  {
    const c10::DebugInfoGuard guard(c10::DebugInfoKind::PROFILER_STATE, listener);
    work();
  }
  return listener->peak;
}

}  // namespace cifar
