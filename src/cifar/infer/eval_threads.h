// eval_threads.h: cifar-eval's CPU thread count: fixed, remembered or measured.
//
// --threads N fixes the count. Otherwise an evaluation of enough batches to
// pay for probes (kTunedBatches; a round costs about as much as a few
// batches) uses the count the thread cache (platform/thread_cache.h)
// remembers for its case ("eval", the CPU, the model, the batch size, the
// precision, LibTorch) at about the machine's present load, with no probes;
// without one, the thread tuner times 1, half and all cores on forward
// passes of its first batch whose results are dropped and runs on the
// fastest, re-checked as it goes, and the first round's choice is
// remembered. A short evaluation runs on all cores. Thread counts change no
// evaluation's numbers beyond the last bits of the loss.
#pragma once

#include <cstdint>
#include <optional>
#include <string>

#include "cifar/infer/evaluate.h"
#include "cifar/platform/cpu_load.h"
#include "cifar/platform/guards.h"
#include "cifar/platform/thread_cache.h"
#include "cifar/platform/thread_tuner.h"

namespace cifar {

class EvalThreads {
 public:
  static constexpr int64_t kTunedBatches = 20;
  // `since`: a reading of the CPU times taken when the tool started (the
  // others' load is measured from it); `model` names the case.
  EvalThreads(const EvalConfig& config, int64_t batches, const torch::Device& device,
              const std::string& model, const std::optional<CpuTimes>& since);
  // Sets the tuner's hooks on `options` (nothing when the count is fixed).
  void hook(EvalOptions& options);

 private:
  std::optional<CpuSettingsGuard> settings_;  // restores the process's count after
  std::optional<ThreadTuner> tuner_;
  std::optional<ThreadCache> cache_;
  std::string key_;
  std::optional<double> load_;
};

}  // namespace cifar
