// precision.h: which floating-point types a device runs fast, and the
// precision a run uses, resolved once from --amp and the device.
//
// PyTorch users meet the trap of bf16 on hardware that only emulates it
// (a 3x3 conv at ~2 GFLOP/s in bf16 against ~27 in float32 on an AVX2 CPU);
// the ecosystem's answer is to ask the hardware, as torch.cuda.is_bf16_supported()
// and Ultralytics' AMP check do. So does this file:
//
//   device_numerics(device)        what the device runs natively, asked of
//                                  LibTorch (ATen's CPU capability, cpuinfo's
//                                  flags, oneDNN's bf16 check) or of CUDA
//   resolve_precision(amp, ...)    --amp auto -> bf16 where native, fp16 with
//                                  loss scaling on older GPUs, float32 else;
//                                  an explicit bf16/fp16 runs as asked, with a
//                                  warning where the device emulates it
//
// Every bf16 choice past this point follows the resolved Precision: autocast
// (amp), Muon's Newton-Schulz iteration (matmul_dtype). ATEN_CPU_CAPABILITY=avx2
// and ONEDNN_MAX_CPU_ISA=AVX2 make a fast CPU answer as an AVX2 one does.
#pragma once

#include <c10/core/Device.h>
#include <c10/core/ScalarType.h>

#include <string>

#include "cifar/core/types.h"

namespace cifar {

struct DeviceNumerics {
  // What the device is, in PyTorch's words: ATen's CPU capability ("AVX512",
  // "AVX2", "DEFAULT", as torch.backends.cpu.get_cpu_capability() says) and
  // the bf16 features behind it; "compute capability 8.0" on CUDA.
  std::string capability;
  bool native_bf16 = false;
  bool native_fp16 = false;  // fp16 tensor cores (CUDA 7.0+)
  std::string bf16_why;      // why bf16 is or is not native, for the log
};

// Asks LibTorch about `device` (the CPU, or a CUDA device that exists).
DeviceNumerics device_numerics(const c10::Device& device);

struct Precision {
  AmpMode amp = AmpMode::kOff;                 // what runs: bf16, fp16 or off, never auto
  bool loss_scaling = false;                   // fp16's GradScaler (grad_scaler.h)
  c10::ScalarType matmul_dtype = c10::kFloat;  // Muon's Newton-Schulz: bf16 where native
  std::string why;                             // "bf16 autocast (--amp auto: ...)", for the log
  std::string warning;  // an explicit choice the device runs slowly; else empty
};

// `slow_bf16_model`: the model runs slower in bf16 than float32 on a CPU even
// where bf16 is native (small layers: the casts cost more; model_registry.h),
// so auto keeps float32 for it and an explicit bf16 is warned about.
// `graphed`: the step is captured as a CUDA graph (--cuda-graph), which
// cannot decide on the host whether to skip a step, so auto never picks fp16
// with loss scaling for it (float32 instead; an explicit fp16 is refused by
// resolve/machine.h's resolve_amp).
Precision resolve_precision(AmpMode requested, const c10::Device& device,
                            const DeviceNumerics& numerics, bool slow_bf16_model = false,
                            bool graphed = false);

}  // namespace cifar
