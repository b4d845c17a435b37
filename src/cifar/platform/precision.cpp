// precision.cpp: asking LibTorch what a device runs natively, and --amp's
// resolution from that answer.
#include "cifar/platform/precision.h"

#include <ATen/Version.h>
#include <ATen/core/dispatch/Dispatcher.h>
#include <ATen/cpu/Utils.h>
#include <fmt/format.h>

#include "cifar/platform/gpu.h"

namespace cifar {
namespace {

// oneDNN's own bf16 check (torch.ops.mkldnn._is_mkldnn_bf16_supported, as
// ATen's mkldnn_bf16_device_check): false under ONEDNN_MAX_CPU_ISA=AVX2.
bool onednn_bf16() {
  const auto schema =
      c10::Dispatcher::singleton().findSchema({"mkldnn::_is_mkldnn_bf16_supported", ""});
  if (!schema) return false;  // a LibTorch built without oneDNN
  return schema->typed<bool()>().call();
}

bool cpu_flag(const std::unordered_map<std::string, c10::IValue>& flags, const std::string& name) {
  const auto it = flags.find(name);
  return it != flags.end() && it->second.isBool() && it->second.toBool();
}

DeviceNumerics cpu_numerics() {
  DeviceNumerics n;
  n.capability = at::get_cpu_capability();  // honours ATEN_CPU_CAPABILITY
  const auto flags = at::cpu::get_cpu_capabilities();
  const bool avx512_bf16 = cpu_flag(flags, "avx512_bf16");
  const bool amx_bf16 = cpu_flag(flags, "amx_bf16");
  const std::string features = avx512_bf16 && amx_bf16 ? "AVX512-BF16 and AMX-BF16"
                               : avx512_bf16           ? "AVX512-BF16"
                               : amx_bf16              ? "AMX-BF16"
                                                       : "";
  if (features.empty()) {
    n.bf16_why = "the CPU has neither AVX512-BF16 nor AMX-BF16: bf16 is emulated";
  } else if (n.capability != "AVX512") {
    n.bf16_why =
        fmt::format("the CPU has {}, but ATen runs its {} kernels; is ATEN_CPU_CAPABILITY set?",
                    features, n.capability);
  } else if (!onednn_bf16()) {
    n.bf16_why = fmt::format(
        "the CPU has {}, but oneDNN runs without it; is ONEDNN_MAX_CPU_ISA set?", features);
  } else {
    n.native_bf16 = true;
    n.bf16_why = "the CPU has " + features;
  }
  return n;
}

DeviceNumerics cuda_numerics(const c10::Device& device) {
  DeviceNumerics n;
  const auto gpus = cuda_devices();
  const auto index = static_cast<size_t>(device.has_index() ? device.index() : 0);
  if (index >= gpus.size()) {
    n.capability = "unknown";
    n.bf16_why = "the GPU's compute capability could not be read";
    return n;
  }
  const GpuInfo& gpu = gpus[index];
  n.capability = fmt::format("compute capability {}.{}", gpu.major, gpu.minor);
  n.native_bf16 = gpu.major >= 8;
  n.native_fp16 = gpu.major >= 7;
  n.bf16_why = fmt::format("{} has {}{}", gpu.name, n.capability,
                           n.native_bf16 ? "" : " (bf16 needs 8.0 or later)");
  return n;
}

}  // namespace

DeviceNumerics device_numerics(const c10::Device& device) {
  return device.is_cuda() ? cuda_numerics(device) : cpu_numerics();
}

Precision resolve_precision(AmpMode requested, const c10::Device& device,
                            const DeviceNumerics& numerics, bool slow_bf16_model, bool graphed) {
  Precision p;
  p.matmul_dtype = numerics.native_bf16 ? c10::kBFloat16 : c10::kFloat;
  const bool cpu = !device.is_cuda();
  const bool bf16_fast = numerics.native_bf16 && !(cpu && slow_bf16_model);
  switch (requested) {
    case AmpMode::kAuto:
      if (bf16_fast) {
        p.amp = AmpMode::kBf16;
        p.why = fmt::format("bf16 autocast (--amp auto: {})", numerics.bf16_why);
      } else if (numerics.native_fp16 && !graphed) {
        p.amp = AmpMode::kFp16;
        p.loss_scaling = true;
        p.why = fmt::format("fp16 autocast with loss scaling (--amp auto: {})", numerics.bf16_why);
      } else {
        p.amp = AmpMode::kOff;
        p.why = fmt::format(
            "float32 (--amp auto: {}{})",
            numerics.native_bf16 ? "this model's small layers run slower in bf16 on a CPU"
                                 : numerics.bf16_why,
            numerics.native_fp16 && graphed
                ? "; fp16 needs loss scaling, which a --cuda-graph step cannot capture"
                : "");
      }
      return p;
    case AmpMode::kBf16:
      p.amp = AmpMode::kBf16;
      p.why = "bf16 autocast (--amp bf16)";
      if (!numerics.native_bf16) {
        p.warning = fmt::format(
            "--amp bf16 on {} ({}): {}, so a step runs several times slower than in float32 "
            "(about 10x on an AVX2 CPU); use --amp auto or --amp off",
            device.str(), numerics.capability, numerics.bf16_why);
      } else if (cpu && slow_bf16_model) {
        p.warning =
            "--amp bf16 on the CPU: supported, but slower than float32 for this small model "
            "(use --amp auto or --amp off for speed)";
      }
      return p;
    case AmpMode::kFp16:
      p.amp = AmpMode::kFp16;
      p.loss_scaling = true;
      p.why = "fp16 autocast with loss scaling (--amp fp16)";
      if (cpu) {
        p.warning =
            "--amp fp16 on the CPU: works, but on CPUs without avx512_fp16 several times slower "
            "than float32 (docs/benchmarks.md); it is meant for GPUs without fast bf16 (T4, V100)";
      }
      return p;
    case AmpMode::kOff:
      p.amp = AmpMode::kOff;
      p.why = "float32 (--amp off)";
      return p;
  }
  return p;
}

}  // namespace cifar
