// machine.cpp: the device, the CPU plan and the precision resolved (machine.h).
#include "cifar/resolve/machine.h"

#include <fmt/format.h>
#include <spdlog/spdlog.h>

#include <cctype>

#include "cifar/core/errors.h"
#include "cifar/core/names.h"
#include "cifar/model/model_registry.h"

namespace cifar {
namespace {

// "; ATEN_CPU_CAPABILITY=avx3 was not taken (...)" when ATen runs other
// kernels than the variable asks for: a value it does not know, or one
// above the CPU. ATen's own warning says only the first.
std::string capability_not_taken(const MachineEnv& env, const DeviceNumerics& numerics) {
  const std::string asked = lower_case(env.aten_cpu_capability);
  const std::string runs = lower_case(numerics.capability);
  if (asked.empty() || asked == runs) return "";
  return fmt::format(
      "; ATEN_CPU_CAPABILITY={} was not taken (ATen runs its {} kernels: the value is none of "
      "default, avx2, avx512, or above what this CPU has)",
      env.aten_cpu_capability, numerics.capability);
}

}  // namespace

Machine resolve_machine(const MachineRequest& r) {
  Machine m;
  m.device = use_device(r.device);  // the tutorial's fallback to the CPU
  if (m.device.is_cuda() && r.local_rank >= 0) {
    m.device = torch::Device(torch::kCUDA, static_cast<c10::DeviceIndex>(r.local_rank));
  }
  m.cpu = choose_cpu_plan({.threads = r.threads > 0 ? r.threads : r.env.omp_num_threads,
                           .source = r.threads > 0 ? "--threads" : "$OMP_NUM_THREADS",
                           .batch_size = r.batch_size,
                           .hardware_threads = r.env.hardware_threads,
                           .physical_cores = physical_cores(r.env.hardware_threads),
                           .processes = r.processes,
                           .deterministic = r.deterministic});
  m.numerics = device_numerics(m.device);
  const auto level = r.quiet ? spdlog::level::debug : spdlog::level::info;
  const bool cpu = m.device.is_cpu();
  spdlog::log(level, "device: {}",
              cpu ? fmt::format("cpu, {} thread{}", m.cpu.threads, m.cpu.threads == 1 ? "" : "s")
                  : m.device.str());
  if (cpu) spdlog::log(level, "threads: {}", m.cpu.why);
  spdlog::log(level, "{}: {}, {} bf16: {}{}", cpu ? "cpu capability" : "gpu", m.numerics.capability,
              m.numerics.native_bf16 ? "native" : "no native", m.numerics.bf16_why,
              cpu ? capability_not_taken(r.env, m.numerics) : "");
  return m;
}

bool cpu_training_onednn(const std::string& model, int64_t local_batch, const Precision& precision,
                         const torch::Device& device, bool quiet) {
  const bool native = device.is_cpu() && local_batch <= 8 && precision.amp == AmpMode::kOff &&
                      model_entry(model).cpu_tiny_batch_native;
  if (native && !quiet) {
    spdlog::info(
        "cpu kernels: ATen's own, not oneDNN: {}'s small layers train faster so at "
        "batch <= 8 in float32",
        model);
  }
  return !native;
}

Precision resolve_amp(AmpMode requested, const Machine& machine, const std::string& model,
                      bool graphed, bool quiet) {
  Precision p = resolve_precision(requested, machine.device, machine.numerics,
                                  model_entry(model).cpu_bf16_slow, graphed);
  if (p.loss_scaling && graphed) {
    // Refused, not quietly run eagerly: --cuda-graph is asked for speed, and
    // the other way to get the graph (bf16) is one flag away. (auto never
    // picks fp16 for a captured step: precision.h.)
    throw UsageError(
        "--amp fp16 cannot be used with --cuda-graph: whether a step is skipped for inf/NaN "
        "gradients is decided on the host, which a captured graph cannot do; use --amp bf16 "
        "with --cuda-graph (no loss scaling needed), or drop --cuda-graph");
  }
  if (!quiet) {
    spdlog::info("precision: {}", p.why);
    if (!p.warning.empty()) spdlog::warn("{}", p.warning);
  }
  return p;
}

}  // namespace cifar
