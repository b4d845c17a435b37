// device.h: choosing where to run, with the tutorial's try_gpu fallback.
//
// --device accepts auto, cpu, cuda (also spelt gpu) or cuda:N. 'auto' means cuda:0 when a GPU
// is usable, else cpu. A CUDA device that does not exist (or CUDA on a machine
// without a GPU) falls back to the CPU with one warning naming what was asked
// and what is used; a string that names no device at all is none (config/
// refuses it).
#pragma once

#include <torch/torch.h>

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace cifar {

struct DeviceRequest {
  enum class Kind { kAuto, kCpu, kCuda };
  Kind kind = Kind::kAuto;
  int index = 0;              // for kCuda: the N of cuda:N (0 for plain "cuda")
  std::string text = "auto";  // as the user wrote it

  bool operator==(const DeviceRequest&) const = default;
};

// Parses --device; none for anything that is not a device.
std::optional<DeviceRequest> parse_device(const std::string& text);

struct DeviceChoice {
  torch::Device device{torch::kCPU};
  std::string fallback_warning;  // empty unless the request could not be honoured
};

// Honours the request when `cuda_device_count` allows it, else falls back to
// the CPU and says why (the count is a parameter so tests can pretend).
DeviceChoice try_gpu(const DeviceRequest& request, int64_t cuda_device_count);

// try_gpu with the real number of CUDA devices.
DeviceChoice choose_device(const DeviceRequest& request);

// choose_device, logging the fallback warning when there is one.
torch::Device use_device(const DeviceRequest& request);

// What --list-devices prints: the CPU, then each GPU with its name, compute
// capability and total memory.
std::string describe_devices();

}  // namespace cifar
