// train.cpp: the whole training job.
#include "cifar/train/train.h"

#include <fmt/format.h>
#include <spdlog/spdlog.h>

#include <chrono>
#include <cmath>
#include <optional>

#include "cifar/core/errors.h"
#include "cifar/core/version.h"
#include "cifar/data/shard.h"
#include "cifar/dist/distributed.h"
#include "cifar/dist/grad_averager.h"
#include "cifar/io/checkpoint.h"
#include "cifar/io/weights.h"
#include "cifar/platform/cpu_plan.h"
#include "cifar/platform/device.h"
#include "cifar/platform/gpu.h"
#include "cifar/platform/guards.h"
#include "cifar/platform/interrupt.h"
#include "cifar/platform/oom.h"
#include "cifar/platform/thread_tuner.h"
#include "cifar/report/run_outputs.h"
#include "cifar/train/epoch.h"
#include "cifar/train/evaluate.h"
#include "cifar/train/run_setup.h"
#include "cifar/train/step.h"

namespace cifar {
namespace fs = std::filesystem;

namespace {
// The job once the processes have joined: every rank runs all of it, in the
// same order (collectives must match); only rank 0 writes.
TrainResult train_in_group(const TrainConfig& config, const RunEnv& env,
                           const torch::Device& device, const CpuPlan& cpu, Distributed& dist,
                           int64_t local_batch) {
  // 2. The checkpoint to resume from, if any: it fixes the model.
  //    Or weights to start from (--init-weights), which fix it likewise.
  std::optional<LoadedCheckpoint> resumed = load_resume(config);
  if (!config.init_weights.empty()) {
    WeightsOptions options;
    if (!config.model.empty()) options.model = config.model;
    options.stem = config.stem == ResNetStem::kCifar ? "cifar" : "imagenet";
    LoadedWeights weights = load_weights(config.init_weights, options);
    spdlog::info("init weights: {} ({}); {}", config.init_weights, weights.info.model,
                 weights.normalization_note);
    resumed = weights_as_checkpoint(std::move(weights));  // epoch 0: a fresh start from them
  }
  const bool from_checkpoint = !config.resume.empty();
  const std::string model_name =
      resumed ? resumed->info.model : (config.model.empty() ? "net" : config.model);
  const ResNetStem stem = resumed ? parse_stem(resumed->info.stem) : config.stem;
  warn_ignored(config, model_name, device);

  // 3. Data: read once, moved to the device once.
  const TrainValSplit splits = read_train_split(config);
  const Cifar10Dataset& train_split = splits.train;
  const Cifar10Dataset test_split = read_cifar10(config.data_dir, Split::kTest);
  const Normalization norm = resumed ? resumed->info.normalization : Normalization{};
  log_data(config, splits, test_split.size(), dist.is_main());
  const DeviceDataset train_data(train_split, device, norm, config.channels_last);
  const DeviceDataset test_data(test_split, device, norm, config.channels_last);
  std::optional<DeviceDataset> val_data;
  if (splits.val.size() > 0) val_data.emplace(splits.val, device, norm, config.channels_last);

  // 4. Outputs, now that the inputs are known good (rank 0 only).
  //    Files are named as the user gave them (in messages too); config.toml
  //    holds absolute paths, so that it resumes the run from any folder.
  const fs::path run_dir =
      config.run_dir.empty() ? default_run_dir(model_name) : fs::path(config.run_dir);
  const fs::path checkpoint =
      config.checkpoint.empty() ? fs::path(model_name + ".pt") : fs::path(config.checkpoint);
  const TrainConfig resolved = resolved_settings(config, model_name, stem, run_dir, checkpoint);
  const std::string config_toml = to_toml(resolved);
  spdlog::debug("settings:\n{}", config_toml);
  std::optional<RunOutputs> outputs;
  if (dist.is_main()) {
    outputs.emplace(run_dir, checkpoint, config_toml, config.tensorboard, !from_checkpoint,
                    config.overwrite);
  }

  // 5. Model and optimizer, the same on every process.
  const SeedGuard seed(config.seed);
  Classifier model = resumed ? resumed->model : make_model(ModelOptions(model_name).stem(stem));
  model->to(device);
  if (config.channels_last) to_channels_last(*model);
  spdlog::info("model: {} ({} parameters)", model_name, count_parameters(*model));
  Sgd optimizer(model->parameters(), SgdOptions(config.lr)
                                         .momentum(config.momentum)
                                         .nesterov(config.nesterov)
                                         .weight_decay(config.weight_decay));
  if (from_checkpoint) load_optimizer_state(*resumed, optimizer);
  dist.broadcast_module(*model);
  GradientAverager averager(dist, model->parameters());
  Trainee trainee{*model, optimizer, dist, averager};

  // 6. Where to start, and how each epoch runs.
  const bool graphed = config.cuda_graph && device.is_cuda();
  const int64_t shard_size = train_data.size() / dist.world_size();
  EpochOptions epoch_options{
      local_batch,
      ScheduleOptions{config.schedule, config.lr, config.warmup_epochs, config.epochs,
                      steps_in_epoch(shard_size, local_batch, graphed)},
      StepOptions{config.amp, config.label_smoothing},
      graphed,
      env.progress_bar,
      config.log_interval_s,
      {},
      {}};
  // The thread count, measured while training when the user did not fix it.
  std::optional<ThreadTuner> tuner;
  std::string tuner_said;
  int tuned_threads = 0;
  if (cpu.tune && device.is_cpu()) {
    tuner.emplace(ThreadTuner::candidates_for(cpu.threads));
    epoch_options.after_step = [&](int64_t images) {
      tuner->after_step(images);
      if (tuner->last_decision() == tuner_said) return;  // no new round finished
      tuner_said = tuner->last_decision();
      const bool changed = tuner->threads() != tuned_threads;  // info only when it changes
      tuned_threads = tuner->threads();
      spdlog::log(changed ? spdlog::level::info : spdlog::level::debug, "{}", tuner_said);
    };
  }
  const ProgressBarOptions eval_progress =
      eval_progress_options(env.progress_bar, config.log_interval_s);
  auto threads_now = [&] { return tuner ? tuner->threads() : cpu.threads; };
  if (outputs) {
    epoch_options.on_refresh = [&](int64_t step, double loss) {
      outputs->running_loss(step, loss);
    };
  }
  CheckpointInfo info = checkpoint_info(resolved, norm, train_split.class_names, config_toml);
  info.world_size = dist.world_size();
  info.run_id = from_checkpoint && !resumed->info.run_id.empty() ? resumed->info.run_id
                                                                 : make_run_id(run_dir);
  if (outputs) {
    if (auto note = note_if_replacing_other_run(checkpoint, info.run_id)) spdlog::warn("{}", *note);
  }
  EpochPosition position{1, config.epochs, 0, 0};
  if (from_checkpoint) {
    position = {resumed->info.epoch + 1, config.epochs, resumed->info.step_in_epoch,
                resumed->info.global_step};
    info.best_accuracy = resumed->info.best_accuracy;
    spdlog::info("resuming {} from epoch {} step {}", config.resume, position.epoch,
                 position.first_step);
    if (resumed->info.world_size != dist.world_size()) {
      spdlog::info(
          "note: {} was trained by {} process(es), this run has {}: the global batch stays {}, so "
          "each step takes the same samples as before (split {} ways now)",
          config.resume, resumed->info.world_size, dist.world_size(), config.batch_size,
          dist.world_size());
    }
  }
  if (outputs) outputs->started(config_toml, hparams_of(resolved), position.global_step);
  const OomAdvice train_oom{"--batch-size", config.batch_size, model_name,
                            device,         config.amp,        train_data.size()};
  const OomAdvice eval_oom{"--eval-batch-size", config.eval_batch_size, model_name, device,
                           config.amp,          test_data.size()};
  const InterruptGuard interrupt_guard;
  auto stop_here = [&](int64_t epochs_done, int64_t step, const std::string& where) {
    info.epoch = epochs_done;
    info.step_in_epoch = step;
    info.global_step = position.global_step;
    info.test_accuracy = -1;
    const std::string bytes = encode_checkpoint(info, *model, &optimizer);
    if (outputs) {
      outputs->save_latest(bytes);
      outputs->finished(false);
    }
    throw Interrupted(
        fmt::format("interrupted (signal {}) {}: checkpoint written to {}; resume with: {} "
                    "--config {} --resume {}",
                    stop_signal(), where, checkpoint.string(), env.program,
                    (run_dir / "config.toml").string(), checkpoint.string()),
        /*announce=*/dist.is_main());  // every rank stopped at this step; rank 0 says so
  };

  // 7. The epochs.
  TrainResult result{model_name, device.str(),        {},     {}, train_split.class_names,
                     checkpoint, run_dir / "best.pt", run_dir};
  for (; position.epoch <= config.epochs; ++position.epoch) {
    const EpochPlan plan = shard_plan(
        train_data.plan_epoch(/*shuffle=*/true, config.augment, config.seed, position.epoch),
        dist.rank(), dist.world_size());
    if (tuner) tuner->restart_clock();
    const EpochStats stats = with_oom_advice(train_oom, [&] {
      const CpuSettingsGuard cpu_settings(threads_now(), cpu.training_onednn);
      return train_one_epoch(trainee, train_data, plan, epoch_options, position);
    });
    position.global_step += stats.steps - position.first_step;
    if (stats.interrupted) {
      stop_here(position.epoch - 1, stats.steps,
                fmt::format("in epoch {} after step {}", position.epoch, stats.steps));
    }
    position.first_step = 0;

    EpochTimer eval_timer(device);
    eval_timer.start();
    EvalResult eval;
    std::optional<EvalResult> val;
    try {
      const CpuSettingsGuard cpu_settings(threads_now(), /*onednn=*/true);
      auto evaluate_on = [&](const DeviceDataset& data) {
        return with_oom_advice(eval_oom, [&] {
          return evaluate(*model, data, config.eval_batch_size, config.amp, kNumClasses, &dist,
                          dist.is_main() ? &eval_progress : nullptr);
        });
      };
      if (val_data) val = evaluate_on(*val_data);
      eval = evaluate_on(test_data);
    } catch (const Interrupted&) {
      stop_here(position.epoch, 0, fmt::format("while evaluating epoch {}", position.epoch));
    }
    const EpochMetrics m =
        metrics_of(position.epoch, stats, eval, val ? &*val : nullptr, eval_timer.stop());
    spdlog::info("{}", format_epoch_line(m, config.epochs));
    result.history.push_back(m);
    result.final_eval = eval;

    info.epoch = position.epoch;
    info.step_in_epoch = 0;
    info.global_step = position.global_step;
    info.test_accuracy = m.test_accuracy;
    const bool best = m.selection_accuracy() > info.best_accuracy;
    if (best) {
      info.best_accuracy = m.selection_accuracy();
      spdlog::info("best.pt: epoch {} ({} accuracy {:.2f}%)", m.epoch,
                   m.has_validation() ? "validation" : "test", 100 * m.selection_accuracy());
    }
    if (outputs) {
      outputs->epoch_done(m, eval, train_split.class_names,
                          encode_checkpoint(info, *model, &optimizer), best);
    }
  }
  if (outputs) {
    outputs->finished(true);
    // The weights, ready for Python (see scripts/python/cifar_models.py).
    spdlog::info("weights for Python: {}", write_run_weights(run_dir, info, *model).string());
  }
  return result;
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

  // 1. Device, with the tutorial's fallback, and the process settings for it.
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
  std::optional<CudaMathGuard> cuda_math;
  if (device.is_cuda()) cuda_math.emplace(config.cudnn_benchmark, config.tf32);
  spdlog::info("device: {}", device.is_cpu()
                                 ? fmt::format("cpu, {} threads ({})", cpu.threads, cpu.why)
                                 : device.str());
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
