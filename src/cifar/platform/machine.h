// machine.h: what a tool runs on, resolved once for every tool.
//
// resolve/machine.h makes it from a tool's options (--device, --threads, the
// batch size): the device (the tutorial's try_gpu fallback), the CPU plan
// (cpu_plan.h) and what the device runs natively (precision.h). The tools'
// parts below the resolve layer take it as it is and ask nothing again.
#pragma once

#include <torch/torch.h>

#include "cifar/platform/cpu_plan.h"
#include "cifar/platform/precision.h"

namespace cifar {

struct Machine {
  torch::Device device{torch::kCPU};
  CpuPlan cpu;              // the thread count and its rule (used on the CPU only)
  DeviceNumerics numerics;  // what the device runs natively: --amp auto's answer
};

}  // namespace cifar
