// eval_threads.cpp: cifar-eval's thread count (see eval_threads.h).
#include "cifar/infer/eval_threads.h"

#include <spdlog/spdlog.h>

#include <algorithm>

#include "cifar/core/version.h"

namespace cifar {

EvalThreads::EvalThreads(const EvalConfig& config, int64_t batches, const torch::Device& device,
                         const std::string& model, const std::optional<CpuTimes>& since) {
  if (!device.is_cpu()) return;
  const int cores = static_cast<int>(std::max<int64_t>(1, config.hardware_threads));
  const int threads =
      config.threads > 0 ? static_cast<int>(std::min<int64_t>(config.threads, cores)) : cores;
  if (config.threads > 0 || cores == 1 || batches < kTunedBatches) {
    settings_.emplace(threads, /*onednn=*/true);
    spdlog::info("threads: {} ({})", threads,
                 config.threads > 0 ? "--threads" : "all cores; --threads N fixes the count");
    return;
  }
  const auto candidates = ThreadTuner::candidates_for(cores);
  cache_.emplace(config.thread_cache_file);
  if (!cache_->note().empty()) spdlog::warn("{}", cache_->note());
  key_ = ThreadCase{.phase = "eval",
                    .cpu = cpu_model_name(),
                    .cores = cores,
                    .model = model,
                    .batch = config.batch_size,
                    .precision = to_string(config.amp),
                    .libtorch = libtorch_version()}
             .key();
  const auto now = read_cpu_times();
  if (since && now) load_ = others_busy_cores(*since, *now, 0.05);
  const auto hit = load_ ? cache_->find(key_, *load_) : std::nullopt;
  if (hit && std::find(candidates.begin(), candidates.end(), hit->threads) != candidates.end()) {
    settings_.emplace(hit->threads, /*onednn=*/true);
    spdlog::info(
        "threads: {}, remembered for this case in {} (measured with other processes using "
        "{:.1f} cores, {:.1f} now): no probes",
        hit->threads, cache_->file().string(), hit->others_load, *load_);
    return;
  }
  settings_.emplace(threads, /*onednn=*/true);
  ThreadTunerOptions options;
  options.trial_seconds = 0.05;  // forward passes only: short trials rank them
  options.trial_steps = 5;
  tuner_.emplace(candidates, options);
}

void EvalThreads::hook(EvalOptions& options) {
  if (!tuner_) return;
  options.before_batch = [this](int64_t images, const std::function<void(int64_t)>& probe) {
    if (!tuner_->due()) return;
    const bool first = tuner_->rounds() == 0;
    tuner_->run_round(images, probe);
    spdlog::log(first ? spdlog::level::info : spdlog::level::debug, "{}", tuner_->last_decision());
    if (!first || !load_ || !cache_->enabled()) return;
    RememberedThreads entry{.key = key_,
                            .others_load = *load_,
                            .threads = tuner_->threads(),
                            .rates = {},
                            .probe_seconds = tuner_->last_round_seconds()};
    for (size_t i = 0; i < tuner_->candidates().size(); ++i) {
      entry.rates[tuner_->candidates()[i]] = tuner_->rates()[i];
    }
    cache_->remember(entry);
    if (!cache_->note().empty()) spdlog::warn("{}", cache_->note());
  };
  options.after_batch = [this] { tuner_->after_step(); };
}

}  // namespace cifar
