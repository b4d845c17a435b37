// train.cpp: the training job, from settings to checkpoints and a report.
//
//   recipe  = make_recipe(config)                       what to train, how
//   plan    = make_plan(config, recipe, ...)            model source, data, output paths
//   outputs = RunOutputs(...)                           the run folder (rank 0)
//   session = make_session(plan, recipe, ...)           model, parameter groups, position
//   for each epoch: train_one_epoch; evaluate; record
#include "cifar/train/train.h"

#include <fmt/format.h>
#include <spdlog/spdlog.h>

#include <chrono>
#include <cmath>
#include <optional>

#include "cifar/core/errors.h"
#include "cifar/data/shard.h"
#include "cifar/io/weights.h"
#include "cifar/platform/device.h"
#include "cifar/platform/gpu.h"
#include "cifar/platform/guards.h"
#include "cifar/platform/heap_reuse.h"
#include "cifar/platform/interrupt.h"
#include "cifar/platform/oom.h"
#include "cifar/report/run_outputs.h"
#include "cifar/train/evaluate.h"
#include "cifar/train/forecast.h"
#include "cifar/train/rank_agreement.h"
#include "cifar/train/run_plan.h"
#include "cifar/train/run_setup.h"
#include "cifar/train/session.h"
#include "cifar/train/thread_choice.h"

namespace cifar {
namespace {

// Everything the epochs of one run share.
struct Job {
  const TrainConfig& config;
  const RunEnv& env;
  const Recipe& recipe;
  const RunPlan& plan;
  TrainingSession& session;
  Distributed& dist;
  RunOutputs* outputs;  // null on ranks other than 0
  ThreadChoice& threads;
  RunForecast& forecast;
  const CpuPlan& cpu;
};

// What evaluating one epoch found (test skipped between --eval-every epochs).
struct EpochEvaluation {
  std::optional<EvalResult> test;
  std::optional<EvalResult> val;
  double seconds = 0;
};

EpochOptions epoch_options(const Job& job, int64_t local_batch, const torch::Device& device) {
  return {
      .batch_size = local_batch,
      .drop_last = job.recipe.drop_last,
      .step = {.amp = job.config.amp, .loss = job.recipe.loss},
      .cuda_graph = job.config.cuda_graph && device.is_cuda(),
      .progress_bar = job.env.progress_bar,
      .log_interval_s = job.config.log_interval_s,
      .before_step =
          [&job](int64_t global_step, int64_t images, const std::function<void()>& probe) {
            job.threads.before_step(global_step, images, probe);
          },
      .after_step =
          [&job](int64_t /*images*/) {
            job.threads.after_step();
            if (const std::string line = job.forecast.after_step(); !line.empty()) {
              spdlog::info("{}", line);
            }
          },
      .on_loss = job.outputs == nullptr
                     ? std::function<void(int64_t, double)>{}
                     : [outputs = job.outputs](int64_t step,
                                               double loss) { outputs->running_loss(step, loss); },
  };
}

// Writes the checkpoint of the last completed step and throws Interrupted
// with the command that resumes; every rank stops at the same step.
[[noreturn]] void stop_run(const Job& job, int64_t epochs_done, int64_t step,
                           const std::string& where) {
  CheckpointInfo& info = job.session.info;
  info.epoch = epochs_done;
  info.step_in_epoch = step;
  info.global_step = job.session.position.global_step;
  info.test_accuracy = -1;
  if (job.outputs != nullptr) {
    job.outputs->save_latest(job.session.checkpoint_bytes());
    job.outputs->finished(false);
  }
  throw Interrupted(
      fmt::format("interrupted (signal {}) {}: checkpoint written to {}; resume with: {} "
                  "--config {} --resume {}",
                  stop_signal(), where, job.plan.checkpoint.string(), job.env.program,
                  (job.plan.run_dir / "config.toml").string(), job.plan.checkpoint.string()),
      /*announce=*/job.dist.is_main());
}

bool evaluates(const TrainConfig& config, int64_t epoch) {
  return epoch == config.epochs || epoch % config.eval_every == 0;
}

// Validation (when held out) and test, at --tta; nothing on skipped epochs.
EpochEvaluation evaluate_epoch(const Job& job, int64_t epoch, const torch::Device& device) {
  EpochEvaluation out;
  if (!evaluates(job.config, epoch)) return out;
  DeviceTimer timer(device);
  timer.start();
  const ProgressBarOptions progress =
      eval_progress_options(job.env.progress_bar, job.config.log_interval_s);
  const OomAdvice advice{
      "--eval-batch-size", job.config.eval_batch_size, job.plan.source.model_name, device,
      job.config.amp,      job.plan.test.size()};
  const CpuSettingsGuard cpu_settings(job.threads.threads(), /*onednn=*/true);
  auto evaluate_on = [&](const DeviceDataset& data) {
    return with_oom_advice(advice, [&] {
      return evaluate(*job.session.model, data,
                      {.batch_size = job.config.eval_batch_size,
                       .amp = job.config.amp,
                       .tta = job.config.tta,
                       .dist = &job.dist,
                       .progress = job.dist.is_main() ? &progress : nullptr});
    });
  };
  if (job.plan.val) out.val = evaluate_on(*job.plan.val);
  out.test = evaluate_on(job.plan.test);
  out.seconds = timer.stop();
  return out;
}

// The epoch's line, metrics row, TensorBoard record and checkpoints.
EpochMetrics record_epoch(const Job& job, const EpochStats& stats, const EpochEvaluation& eval) {
  const int64_t epoch = job.session.position.epoch;
  const EpochMetrics m = metrics_of(epoch, stats, eval.test ? &*eval.test : nullptr,
                                    eval.val ? &*eval.val : nullptr, eval.seconds);
  spdlog::info("{}", format_epoch_line(m, job.config.epochs));
  if (const GradScaler& scaler = *job.session.scaler; scaler.enabled()) {
    spdlog::info("epoch {}: {} of {} steps skipped for inf/NaN gradients, loss scale now {:g}",
                 epoch, stats.skipped_steps, stats.steps, scaler.scale_value());
  }
  CheckpointInfo& info = job.session.info;
  info.epoch = epoch;
  info.step_in_epoch = 0;
  info.global_step = job.session.position.global_step;
  info.test_accuracy = m.has_test() ? m.test_accuracy : -1;  // -1: not measured
  const bool best = m.has_test() && m.selection_accuracy() > info.best_accuracy;
  if (best) info.best_accuracy = m.selection_accuracy();
  if (job.outputs != nullptr) {
    job.outputs->epoch_done(m, eval.test ? &*eval.test : nullptr, job.plan.class_names,
                            job.session.checkpoint_bytes(), best);
  }
  return m;
}

TrainResult run_epochs(const Job& job, const torch::Device& device, int64_t local_batch) {
  TrainResult result{.model = job.plan.source.model_name,
                     .device = device.str(),
                     .history = {},
                     .final_eval = {},
                     .class_names = job.plan.class_names,
                     .checkpoint = job.plan.checkpoint,
                     .best_checkpoint = job.plan.run_dir / "best.pt",
                     .run_dir = job.plan.run_dir};
  const EpochOptions options = epoch_options(job, local_batch, device);
  const OomAdvice train_oom{"--batch-size", job.config.batch_size, job.plan.source.model_name,
                            device,         job.config.amp,        job.plan.train.size()};
  EpochPosition& position = job.session.position;
  for (; position.epoch <= job.config.epochs; ++position.epoch) {
    const EpochPlan plan =
        shard_plan(job.plan.train.plan_epoch(/*shuffle=*/true, job.recipe.augmentation,
                                             job.config.seed, position.epoch),
                   job.dist.rank(), job.dist.world_size());
    job.threads.restart_clock();
    const EpochStats stats = with_oom_advice(train_oom, [&] {
      const CpuSettingsGuard cpu_settings(job.threads.threads(), job.cpu.training_onednn);
      return train_one_epoch(*job.session.learner, job.plan.train, plan, options, position);
    });
    position.global_step += stats.steps - position.first_step;
    if (stats.interrupted) {
      stop_run(job, position.epoch - 1, stats.steps,
               fmt::format("in epoch {} after step {}", position.epoch, stats.steps));
    }
    position.first_step = 0;
    std::optional<EpochEvaluation> eval;
    try {
      eval = evaluate_epoch(job, position.epoch, device);
    } catch (const Interrupted&) {
      // A stop during evaluation keeps the epoch's training; it resumes at the next epoch.
    }
    if (!eval)
      stop_run(job, position.epoch, 0, fmt::format("while evaluating epoch {}", position.epoch));
    result.history.push_back(record_epoch(job, stats, *eval));
    if (eval->test) result.final_eval = *eval->test;
  }
  return result;
}

// The job once the processes have joined: every rank runs all of it, in the
// same order (collectives must match); only rank 0 writes.
TrainResult train_in_group(const TrainConfig& config, const RunEnv& env,
                           const torch::Device& device, const CpuPlan& cpu, Distributed& dist,
                           int64_t local_batch) {
  const Recipe recipe = make_recipe(config);
  const RunPlan plan = make_plan(config, recipe, device, dist);
  check_ranks_agree(dist, plan);  // before any collective and before the run folder
  std::optional<RunOutputs> outputs;
  if (dist.is_main()) {
    outputs.emplace(plan.run_dir, plan.checkpoint, plan.config_toml, config.tensorboard,
                    /*fresh=*/!plan.source.resumed, config.overwrite, run_input_files(config));
  }
  TrainingSession session = make_session(plan, recipe, config, dist, device, local_batch);
  if (outputs) {
    if (auto note = note_if_replacing_other_run(plan.checkpoint, session.info.run_id)) {
      spdlog::warn("{}", *note);
    }
    outputs->started(plan.config_toml, hparams_of(plan.resolved), session.position.global_step);
  }
  ThreadChoice threads(cpu, device.is_cpu());
  const int64_t steps_per_epoch =
      steps_in_epoch(plan.train.size() / dist.world_size(), local_batch,
                     recipe.drop_last || (config.cuda_graph && device.is_cuda()));
  const EpochPosition& at = session.position;
  RunForecast forecast(steps_per_epoch * (config.epochs - at.epoch + 1) - at.first_step,
                       device.is_cpu());
  const InterruptGuard interrupt_guard;
  const Job job{.config = config,
                .env = env,
                .recipe = recipe,
                .plan = plan,
                .session = session,
                .dist = dist,
                .outputs = outputs ? &*outputs : nullptr,
                .threads = threads,
                .forecast = forecast,
                .cpu = cpu};
  TrainResult result = run_epochs(job, device, local_batch);
  if (threads.tuning()) spdlog::info("{}", threads.summary());
  if (outputs) {
    outputs->finished(true);
    // The weights, ready for Python (see scripts/python/cifar_models.py).
    spdlog::info("weights for Python: {}",
                 write_run_weights(plan.run_dir, session.info, *session.model).string());
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
  validate(config);
  if (env.dist.active() && config.cuda_graph) {
    throw UsageError(
        "--cuda-graph with several processes is not supported yet: drop --cuda-graph "
        "or run one process");
  }
  // Only rank 0 logs at info level; the others say only what goes wrong.
  const LogLevelGuard quiet_ranks(env.dist.rank == 0 ? spdlog::get_level() : spdlog::level::warn);

  // The device, with the tutorial's fallback, and the process settings for it.
  torch::Device device = use_device(config.device);
  if (device.is_cuda() && env.dist.active()) {
    device = torch::Device(torch::kCUDA, static_cast<c10::DeviceIndex>(env.dist.local_rank));
  }
  // Each process plans for its own batch and its share of this machine's cores.
  const int64_t local_batch = per_rank_batch(config.batch_size, env.dist.world_size);
  const int64_t cores = std::max<int64_t>(1, env.hardware_threads / env.dist.local_world_size);
  const int64_t threads = config.threads > 0 ? config.threads : env.omp_num_threads;
  CpuPlan cpu = choose_cpu_plan(threads, local_batch, cores,
                                config.threads > 0 ? "--threads" : "$OMP_NUM_THREADS");
  if (env.dist.local_world_size > 1) {
    cpu.why += fmt::format("; {} processes share this machine's {} hardware threads",
                           env.dist.local_world_size, env.hardware_threads);
  }
  if (config.deterministic && cpu.tune) {
    cpu.tune = false;
    cpu.why = fmt::format("{} (all cores), fixed by --deterministic: no measuring", cpu.threads);
  }
  std::optional<CudaMathGuard> cuda_math;
  if (device.is_cuda()) {
    cuda_math.emplace(config.cudnn_benchmark && !config.deterministic, config.tf32);
  }
  const DeterministicGuard deterministic(config.deterministic);
  log_repeatability(config, device);
  std::optional<HeapReuseGuard> heap_reuse;  // CPU activations reused, not re-mapped (heap_reuse.h)
  if (device.is_cpu()) heap_reuse.emplace();
  spdlog::info("device: {}",
               device.is_cpu() ? fmt::format("cpu, {} threads", cpu.threads) : device.str());
  if (device.is_cpu()) spdlog::info("threads: {}", cpu.why);
  // Joins the other processes (with one, nothing to join).
  Distributed dist(
      env.dist, device,
      DistOptions{std::chrono::milliseconds(std::llround(config.dist_timeout_s * 1000))});
  if (dist.world_size() > 1) {
    spdlog::info("{} processes ({}): global batch {} = {} x {}", dist.world_size(),
                 dist.backend_name(), config.batch_size, dist.world_size(), local_batch);
  }
  try {
    return train_in_group(config, env, device, cpu, dist, local_batch);
  } catch (const Interrupted&) {
    throw;
  } catch (const std::exception& e) {
    dist.report_failure(first_line(e.what()));  // the others name the cause
    throw;
  }
}

}  // namespace cifar
