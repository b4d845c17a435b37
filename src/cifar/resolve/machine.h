// machine.h: the device, the CPU plan and the precision of any tool, resolved
// and logged in one place.
//
// cifar-train, cifar-eval and cifar-predict each call resolve_machine once,
// before their work, and resolve_amp once the model is known (whether bf16
// is slow for it). This is the only place that chooses the device, plans the
// CPU's threads or asks the precision policy (platform/precision.h) what
// --amp resolves to; a new device or precision kind is a change there and
// here. Each line is logged once, at info level (debug for cifar-predict,
// whose output is its answers).
#pragma once

#include <cstdint>
#include <string>

#include "cifar/platform/device.h"
#include "cifar/platform/machine.h"

namespace cifar {

struct MachineRequest {
  DeviceRequest device;     // --device
  int64_t threads = 0;      // --threads; 0: $OMP_NUM_THREADS, else the rule
  MachineEnv env;           // the app's to read
  int64_t batch_size = 1;   // each process's
  int64_t processes = 1;    // processes sharing this machine (torchrun's local world)
  int64_t local_rank = -1;  // 0 and up: each process on its own GPU, cuda:local_rank
  bool deterministic = false;
  bool quiet = false;  // the lines at debug level
};

Machine resolve_machine(const MachineRequest& request);

// --amp `requested` for `model` on `machine` (`graphed`: --cuda-graph), its
// line (and warning) logged unless `quiet`. UsageError for fp16 with a
// captured step (its loss scaling skips steps on the host).
Precision resolve_amp(AmpMode requested, const Machine& machine, const std::string& model,
                      bool graphed, bool quiet = false);

// Whether the CPU trains `model` through oneDNN at `local_batch` (each
// process's) in `precision`: yes, but for a model whose entry says ATen's own
// kernels train it faster at batch <= 8 in float32
// (ModelEntry::cpu_tiny_batch_native); said in the log when not, unless
// `quiet`. Off a CPU: true (nothing to choose).
bool cpu_training_onednn(const std::string& model, int64_t local_batch, const Precision& precision,
                         const torch::Device& device, bool quiet);

}  // namespace cifar
