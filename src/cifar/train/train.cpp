// train.cpp: the training job, from settings to checkpoints and a report.
//
//   check_run_settings(config, env.dist)                refusals that need no file
//   machine = resolve_machine(...)                      device, threads, native precision
//   spec    = resolve_run(config, ...)                  the run resolved (resolve/run_spec.h)
//   session = make_session(spec, ...)                   model, parameter groups, position
//   stop_if_interrupted, check_step_memory              a Ctrl-C or a step too large: stop here
//   outputs = RunOutputs(...)                           the run folder (rank 0)
//   for each epoch: train_one_epoch; evaluate; record  the loop (epoch_loop.h)
#include "cifar/train/train.h"

#include <fmt/format.h>
#include <spdlog/spdlog.h>

#include <chrono>
#include <cmath>
#include <optional>

#include "cifar/core/errors.h"
#include "cifar/data/shard.h"
#include "cifar/io/weights.h"
#include "cifar/model/models.h"
#include "cifar/platform/guards.h"
#include "cifar/platform/heap_reuse.h"
#include "cifar/platform/interrupt.h"
#include "cifar/platform/memory.h"
#include "cifar/report/run_outputs.h"
#include "cifar/resolve/machine.h"
#include "cifar/resolve/rank_agreement.h"
#include "cifar/resolve/run_spec.h"
#include "cifar/train/epoch_loop.h"
#include "cifar/train/forecast.h"
#include "cifar/train/session.h"
#include "cifar/train/step_memory.h"

namespace cifar {
namespace {

// What the first Ctrl-C prints while the run starts (the data's reading).
constexpr const char* kStartingNotice =
    "interrupt: stopping once the data is read, before anything is written (interrupt again to "
    "quit now)";

// A Ctrl-C while the run started: it stops before its folder opens, every
// rank alike (one asked, all stop, naming the first signal any rank had),
// and the folder made for it goes.
void stop_if_interrupted(Distributed& dist) {
  int signal = stop_requested() ? stop_signal() : 0;
  if (dist.world_size() > 1) {
    for (const std::string& rank : dist.all_gather_text(signal ? std::to_string(signal) : "")) {
      if (signal == 0 && !rank.empty()) signal = std::stoi(rank);
    }
  }
  if (signal == 0) return;
  throw Interrupted(fmt::format("interrupted (signal {}) before training started: no run folder or "
                                "checkpoint was written",
                                signal),
                    /*announce=*/dist.is_main());
}

// A CPU step or evaluation batch that would not fit the free memory is
// refused before anything is written (step_memory.h), every rank alike; a
// large step is said.
void check_step_memory(ClassifierImpl& model, const RunSpec& spec, const RunEnv& env,
                       Distributed& dist) {
  const int64_t evaluated =
      std::max(spec.data.test.size(), spec.data.val ? spec.data.val->size() : int64_t{0});
  const StepMemoryOptions options{.batch = per_rank_batch(spec.loop.batch_size, dist.world_size()),
                                  .side = spec.data.train.image_size(),
                                  .channels_last = spec.data.train.channels_last(),
                                  .precision = spec.step.precision,
                                  .processes_here = std::max(1, env.dist.local_world_size),
                                  .resumed = spec.source.resumed.has_value(),
                                  .eval_batch = std::min(spec.loop.eval_batch_size, evaluated),
                                  .eval_side = spec.data.test.image_size()};
  const StepMemory memory = forecast_step_memory(model, options);
  std::string problem = step_memory_problem(memory, options, spec.loop.batch_size);
  if (dist.world_size() > 1) {
    for (const std::string& rank : dist.all_gather_text(problem)) {
      if (problem.empty()) problem = rank;
    }
  }
  if (!problem.empty()) throw std::runtime_error(problem);
  if (memory.available <= 0) return;  // unknown: nothing to compare with
  const bool large = std::max(memory.step, memory.eval) > memory.available / 4;
  spdlog::log(large ? spdlog::level::info : spdlog::level::debug,
              "memory: a step holds about {} ({} an image at {} px), an evaluation batch of {} "
              "about {}, of {} free",
              memory_size(memory.step), memory_size(memory.per_image), options.side,
              options.eval_batch, memory_size(memory.eval), memory_size(memory.available));
}

// The job once the processes have joined: every rank runs all of it, in the
// same order (collectives must match); only rank 0 writes. From the data on,
// it runs at the batch size the spec fitted to the training split.
TrainResult train_in_group(const TrainConfig& given, const RunEnv& env, const Machine& machine,
                           Distributed& dist, ThreadRule& threads) {
  const torch::Device& device = machine.device;
  const auto began = RunForecast::Clock::now();     // the data's reading and decoding counts
  InterruptGuard interrupt_guard(kStartingNotice);  // the training's notice once it starts
  const RunSpec spec = resolve_run(given, {.machine = machine,
                                           .dist = dist,
                                           .progress_bar = env.progress_bar,
                                           .pretrained_dirs = env.pretrained_dirs,
                                           .spare_cache_dir = env.spare_cache_dir,
                                           .configs_dir = env.configs_dir});
  TrainingSession session = make_session(spec, dist, device);
  stop_if_interrupted(dist);
  if (device.is_cpu()) check_step_memory(*session.model, spec, env, dist);
  interrupt_guard.notice(kTrainingNotice);
  std::optional<RunOutputs> outputs;
  if (dist.is_main()) {
    outputs.emplace(spec.paths.run_dir, spec.paths.checkpoint, spec.paths.record.toml(),
                    spec.loop.tensorboard, spec.loop.log_interval_s, spec.resumed_run,
                    given.overwrite, spec.inputs);
  }
  if (outputs) {
    outputs->started(spec.paths.record.toml(), spec.paths.record.hparams(),
                     session.position.global_step,
                     /*has_test_split=*/spec.data.test.size() > 0);
  }
  const EpochPosition& at = session.position;
  const int64_t steps = spec.shape.steps * (spec.loop.epochs - at.epoch + 1) - at.first_step;
  const auto now = RunForecast::Clock::now();
  RunForecast forecast(steps, spec.slow_hint, now,
                       std::chrono::duration<double>(now - began).count());
  const TimeBudget budget{.seconds = spec.loop.time_s, .started = env.started, .first_step = now};
  const TrainingJob job{.loop = spec.loop,
                        .step = spec.step,
                        .env = env,
                        .recipe = spec.recipe,
                        .data = spec.data,
                        .paths = spec.paths,
                        .session = session,
                        .dist = dist,
                        .outputs = outputs ? &*outputs : nullptr,
                        .threads = threads,
                        .forecast = forecast,
                        .budget = budget,
                        .shape = spec.shape};
  TrainResult result = run_epochs(job, device);
  if (outputs) {
    outputs->finished(true);
    // The weights, ready for Python (see scripts/python/cifar_models.py).
    spdlog::info(
        "weights for Python: {}",
        write_run_weights(spec.paths.run_dir, session.info, session.shown_model()).string());
  }
  return result;
}

// Whether two runs of these settings give the same weights, said once.
void log_repeatability(const TrainConfig& config, const torch::Device& device) {
  if (config.deterministic) {
    spdlog::info(
        "deterministic: {}deterministic algorithms only (an operation without one stops the run, "
        "naming itself)",
        device.is_cuda() ? "cuDNN benchmark off, " : "the thread count fixed, ");
  } else if (device.is_cuda()) {
    spdlog::info(
        "repeatability: on a GPU, {}non-deterministic CUDA kernels can make two runs of the same "
        "settings differ in the last bits; --deterministic turns them off",
        config.cudnn_benchmark ? "cuDNN benchmark (--cudnn-benchmark, on) and " : "");
  }
}

}  // namespace

TrainResult train(const TrainConfig& config, const RunEnv& env) {
  check_run_settings(config, env.dist);  // before the device, the processes, any file
  // Only rank 0 logs at info level; the others say only what goes wrong.
  const LogLevelGuard quiet_ranks(env.dist.rank == 0 ? spdlog::get_level() : spdlog::level::warn);

  // The device (a GPU per process under torchrun), its threads, what it runs natively.
  const int64_t local_batch = per_rank_batch(config.batch_size, env.dist.world_size);
  const Machine machine =
      resolve_machine({.device = config.device,
                       .threads = config.threads,
                       .env = env.machine,
                       .batch_size = local_batch,
                       .processes = env.dist.local_world_size,
                       .local_rank = env.dist.active() ? env.dist.local_rank : -1,
                       .deterministic = config.deterministic,
                       .quiet = false});
  const torch::Device& device = machine.device;
  std::optional<CudaMathGuard> cuda_math;
  if (device.is_cuda()) {
    cuda_math.emplace(config.cudnn_benchmark && !config.deterministic, config.tf32);
  }
  const DeterministicGuard deterministic(config.deterministic);
  log_repeatability(config, device);
  std::optional<HeapReuseGuard> heap_reuse;  // CPU activations reused, not re-mapped (heap_reuse.h)
  if (device.is_cpu()) heap_reuse.emplace();
  // Joins the other processes (with one, nothing to join).
  Distributed dist(
      env.dist, device,
      DistOptions{std::chrono::milliseconds(std::llround(config.dist_timeout_s * 1000))});
  if (dist.world_size() > 1) {
    spdlog::info("{} processes ({}): global batch {} = {} x {}", dist.world_size(),
                 dist.backend_name(), config.batch_size, dist.world_size(), local_batch);
  }
  // The thread rule: the others' load is read from now to the first step,
  // then between steps (a plan that does not follow the load reads none).
  ThreadRule threads(machine.cpu,
                     device.is_cpu() ? CpuTimesSource(read_cpu_times) : CpuTimesSource{});
  try {
    return train_in_group(config, env, machine, dist, threads);
  } catch (const Interrupted&) {
    throw;
  } catch (const std::exception& e) {
    dist.report_failure(first_line(e.what()));  // the others name the cause
    throw;
  }
}

}  // namespace cifar
