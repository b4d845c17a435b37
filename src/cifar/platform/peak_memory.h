// peak_memory.h: the most tensor memory a piece of work held at once.
//
// For the evaluation's memory forecast (train/step_memory.h): a forward pass
// without a graph leaves nothing held, so its cost is its peak, which the
// heap's figures (memory.h) cannot show. LibTorch's CPU allocator reports
// each allocation and free to the thread's memory profiler when one asks for
// them (c10::reportMemoryUsageToProfiler); this is such a listener, one that
// turns no profiling on, installed for the work alone.
#pragma once

#include <cstdint>
#include <functional>

namespace cifar {

// Runs `work` on this thread and returns the most bytes of CPU tensors it
// held at once above what was held before it (tensors made by LibTorch's
// allocator; oneDNN's own scratch buffers too where they come from it).
int64_t peak_cpu_tensor_bytes(const std::function<void()>& work);

}  // namespace cifar
