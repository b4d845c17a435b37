// device.cpp: parsing --device and falling back to the CPU.
#include "cifar/platform/device.h"

#include <fmt/format.h>
#include <spdlog/spdlog.h>

#include <charconv>
#include <thread>

#include "cifar/platform/gpu.h"

namespace cifar {

std::optional<DeviceRequest> parse_device(const std::string& text) {
  DeviceRequest request;
  request.text = text;
  if (text == "auto") return request;
  if (text == "cpu") {
    request.kind = DeviceRequest::Kind::kCpu;
    return request;
  }
  if (text == "cuda" || text == "gpu") {
    request.kind = DeviceRequest::Kind::kCuda;
    return request;
  }
  const std::string prefix = "cuda:";
  if (text.rfind(prefix, 0) == 0 && text.size() > prefix.size()) {
    const char* first = text.data() + prefix.size();
    const char* last = text.data() + text.size();
    int index = -1;
    const auto [end, ec] = std::from_chars(first, last, index);
    if (ec == std::errc() && end == last && index >= 0) {
      request.kind = DeviceRequest::Kind::kCuda;
      request.index = index;
      return request;
    }
  }
  return std::nullopt;
}

DeviceChoice try_gpu(const DeviceRequest& request, int64_t cuda_device_count) {
  DeviceChoice choice;
  switch (request.kind) {
    case DeviceRequest::Kind::kCpu:
      return choice;
    case DeviceRequest::Kind::kAuto:
      if (cuda_device_count > 0) choice.device = torch::Device(torch::kCUDA, 0);
      return choice;
    case DeviceRequest::Kind::kCuda:
      if (request.index < cuda_device_count) {
        choice.device = torch::Device(torch::kCUDA, static_cast<c10::DeviceIndex>(request.index));
      } else if (cuda_device_count == 0) {
        choice.fallback_warning = fmt::format(
            "--device {} asked for a GPU, but no CUDA device is usable here; using the CPU",
            request.text);
      } else {
        choice.fallback_warning = fmt::format(
            "--device {} asked for GPU {}, but this machine has {} (cuda:0 to cuda:{}); using "
            "the CPU",
            request.text, request.index, cuda_device_count, cuda_device_count - 1);
      }
      return choice;
  }
  return choice;
}

DeviceChoice choose_device(const DeviceRequest& request) {
  const int64_t count = request.kind == DeviceRequest::Kind::kCpu
                            ? 0
                            : static_cast<int64_t>(torch::cuda::device_count());
  return try_gpu(request, count);
}

torch::Device use_device(const DeviceRequest& request) {
  const DeviceChoice choice = choose_device(request);
  if (!choice.fallback_warning.empty()) spdlog::warn("{}", choice.fallback_warning);
  return choice.device;
}

std::string describe_devices() {
  std::string out = fmt::format("cpu: {} hardware threads, LibTorch uses {} for intra-op work\n",
                                std::thread::hardware_concurrency(), torch::get_num_threads());
  const auto gpus = cuda_devices();
  if (gpus.empty()) {
    out += fmt::format("cuda: no usable GPU ({})\n",
                       cuda_compiled() ? "LibTorch has CUDA, but no device or driver is present"
                                       : "this build has no CUDA support");
  }
  for (size_t i = 0; i < gpus.size(); ++i) {
    out += fmt::format("cuda:{}: {}, compute capability {}.{}, {:.1f} GiB\n", i, gpus[i].name,
                       gpus[i].major, gpus[i].minor,
                       static_cast<double>(gpus[i].total_memory) / (1024.0 * 1024.0 * 1024.0));
  }
  return out;
}

}  // namespace cifar
