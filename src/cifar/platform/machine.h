// machine.h: what a tool runs on, resolved once for every tool.
//
// resolve/machine.h makes it from a tool's options (--device, --threads, the
// batch size): the device (the tutorial's try_gpu fallback), the CPU plan
// (cpu_plan.h) and what the device runs natively (precision.h). The tools'
// parts below the resolve layer take it as it is and ask nothing again.
#pragma once

#include <torch/torch.h>

#include <cstdint>
#include <string>

#include "cifar/platform/cpu_plan.h"
#include "cifar/platform/precision.h"

namespace cifar {

// What the environment says of the machine, read by the app (the library
// reads no environment): the cores, $OMP_NUM_THREADS, $ATEN_CPU_CAPABILITY.
struct MachineEnv {
  int64_t hardware_threads = 1;     // std::thread::hardware_concurrency()
  int64_t omp_num_threads = 0;      // $OMP_NUM_THREADS (torchrun sets 1); 0: unset
  std::string aten_cpu_capability;  // $ATEN_CPU_CAPABILITY as set; "": unset
};

struct Machine {
  torch::Device device{torch::kCPU};
  CpuPlan cpu;              // the thread count and its rule (used on the CPU only)
  DeviceNumerics numerics;  // what the device runs natively: --amp auto's answer
};

}  // namespace cifar
