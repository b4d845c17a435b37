// gpu.h: the few places that talk to CUDA directly.
//
// GPU work is asynchronous: a CPU clock read around it measures only the
// launches. DeviceTimer therefore times with CUDA events on a GPU (and
// synchronises before reading them), and with a steady clock on the CPU.
// Peak memory is the caching allocator's peak of allocated bytes since the
// last reset. Everything here compiles without CUDA and then reports nothing.
#pragma once

#include <torch/torch.h>

#include <chrono>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

namespace cifar {

struct GpuInfo {
  std::string name;
  int major = 0;
  int minor = 0;
  int64_t total_memory = 0;  // bytes
};

// True when this build links LibTorch's CUDA library (not whether a GPU exists).
bool cuda_compiled();
std::vector<GpuInfo> cuda_devices();

// Waits for all queued work on `device` (no-op on the CPU).
void synchronize(const torch::Device& device);

void reset_peak_memory(const torch::Device& device);
int64_t peak_memory_bytes(const torch::Device& device);  // 0 on the CPU

// Wall time of a stretch of work on one device, measured honestly.
class DeviceTimer {
 public:
  explicit DeviceTimer(const torch::Device& device);
  ~DeviceTimer();
  DeviceTimer(const DeviceTimer&) = delete;
  DeviceTimer& operator=(const DeviceTimer&) = delete;

  void start();
  // Seconds since start(); on a GPU this synchronises on the stop event.
  double stop();

 private:
  struct CudaEvents;
  torch::Device device_;
  std::chrono::steady_clock::time_point cpu_start_;
  std::unique_ptr<CudaEvents> events_;
};

}  // namespace cifar
