// gpu.cpp: CUDA events, device properties and allocator statistics.
#include "cifar/platform/gpu.h"

#ifdef CIFAR_HAS_CUDA
#include <ATen/cuda/CUDAContext.h>
#include <c10/cuda/CUDACachingAllocator.h>
#include <c10/cuda/CUDAEvent.h>
#include <c10/cuda/CUDAFunctions.h>
#include <c10/cuda/CUDAGuard.h>
#endif

namespace cifar {

#ifdef CIFAR_HAS_CUDA
struct DeviceTimer::CudaEvents {
  c10::cuda::CUDAEvent begin{cudaEventDefault};
  c10::cuda::CUDAEvent end{cudaEventDefault};
};
#else
struct DeviceTimer::CudaEvents {};
#endif

bool cuda_compiled() {
#ifdef CIFAR_HAS_CUDA
  return true;
#else
  return false;
#endif
}

std::vector<GpuInfo> cuda_devices() {
  std::vector<GpuInfo> gpus;
#ifdef CIFAR_HAS_CUDA
  const auto count = static_cast<int>(torch::cuda::device_count());
  for (int i = 0; i < count; ++i) {
    const cudaDeviceProp* p = at::cuda::getDeviceProperties(static_cast<c10::DeviceIndex>(i));
    gpus.push_back({p->name, p->major, p->minor, static_cast<int64_t>(p->totalGlobalMem)});
  }
#endif
  return gpus;
}

void synchronize(const torch::Device& device) {
#ifdef CIFAR_HAS_CUDA
  if (!device.is_cuda()) return;
  // device_synchronize() waits for the current device: make it the one asked
  // for (cuda:1 from a process whose current device is 0).
  const c10::cuda::OptionalCUDAGuard on(device.has_index() ? std::optional(device) : std::nullopt);
  c10::cuda::device_synchronize();
#else
  (void)device;
#endif
}

#ifdef CIFAR_HAS_CUDA
namespace {
// The caching allocator's index for `device` ("cuda" alone: the current
// device), its CUDA state set up first: before the first CUDA tensor the
// allocator knows no device and its statistics calls throw "Invalid device
// argument".
c10::DeviceIndex allocator_index(const torch::Device& device) {
  at::globalContext().lazyInitDevice(c10::DeviceType::CUDA);
  return device.has_index() ? device.index() : c10::cuda::current_device();
}
}  // namespace
#endif

void reset_peak_memory(const torch::Device& device) {
#ifdef CIFAR_HAS_CUDA
  if (device.is_cuda()) c10::cuda::CUDACachingAllocator::resetPeakStats(allocator_index(device));
#else
  (void)device;
#endif
}

int64_t peak_memory_bytes(const torch::Device& device) {
#ifdef CIFAR_HAS_CUDA
  if (device.is_cuda()) {
    const auto stats = c10::cuda::CUDACachingAllocator::getDeviceStats(allocator_index(device));
    return stats.allocated_bytes[static_cast<size_t>(c10::CachingAllocator::StatType::AGGREGATE)]
        .peak;
  }
#else
  (void)device;
#endif
  return 0;
}

DeviceTimer::DeviceTimer(const torch::Device& device) : device_(device) {
#ifdef CIFAR_HAS_CUDA
  if (device_.is_cuda()) events_ = std::make_unique<CudaEvents>();
#endif
}

DeviceTimer::~DeviceTimer() = default;

void DeviceTimer::start() {
#ifdef CIFAR_HAS_CUDA
  if (events_) {
    c10::cuda::CUDAGuard guard(device_);
    events_->begin.record();
    return;
  }
#endif
  cpu_start_ = std::chrono::steady_clock::now();
}

double DeviceTimer::stop() {
#ifdef CIFAR_HAS_CUDA
  if (events_) {
    c10::cuda::CUDAGuard guard(device_);
    events_->end.record();
    events_->end.synchronize();
    return static_cast<double>(events_->begin.elapsed_time(events_->end)) / 1000.0;
  }
#endif
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - cpu_start_).count();
}

}  // namespace cifar
