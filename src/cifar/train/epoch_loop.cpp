// epoch_loop.cpp: the loop of a training run's epochs (epoch_loop.h).
#include "cifar/train/epoch_loop.h"

#include <fmt/format.h>
#include <spdlog/spdlog.h>

#include <algorithm>
#include <optional>

#include "cifar/config/option_spec.h"  // kMaxEpochs
#include "cifar/core/errors.h"
#include "cifar/core/names.h"
#include "cifar/data/shard.h"
#include "cifar/infer/evaluate.h"
#include "cifar/platform/device.h"
#include "cifar/platform/gpu.h"
#include "cifar/platform/guards.h"
#include "cifar/platform/interrupt.h"
#include "cifar/platform/oom.h"
#include "cifar/train/epoch.h"

namespace cifar {
namespace {

// What evaluating one epoch found: nothing between --eval-every epochs; no
// test without a test split, no val without a validation split.
struct EpochEvaluation {
  std::optional<EvalResult> test;
  bool evaluated = false;
  std::optional<EvalResult> val;
  double seconds = 0;
};

EpochOptions epoch_options(const TrainingJob& job) {
  return {
      .shape = job.shape,
      .step = job.step,
      .resolutions = job.loop.resolutions,
      .progress_bar = job.env.progress_bar,
      .log_interval_s = job.loop.log_interval_s,
      .before_step = [&job](int64_t global_step) { job.threads.at_boundary("step", global_step); },
      .after_step =
          [&job](int64_t /*images*/) {
            job.session.after_step();
            if (job.budget.active()) return;  // the budget's fits say the run's length
            if (const std::string line = job.forecast.after_step(); !line.empty()) {
              spdlog::info("{}", line);
            }
          },
      // TensorBoard's running loss, read back every 10 steps on rank 0: only
      // when there are event files to write it to (no host sync otherwise).
      .on_loss = job.outputs == nullptr || !job.loop.tensorboard
                     ? std::function<void(int64_t, double)>{}
                     : [outputs = job.outputs](int64_t step,
                                               double loss) { outputs->running_loss(step, loss); },
  };
}

// Writes the checkpoint of the last completed step and throws Interrupted
// with the command that resumes; every rank stops at the same step.
[[noreturn]] void stop_run(const TrainingJob& job, int64_t epochs_done, int64_t step,
                           const EpochSoFar& so_far, const std::string& where) {
  CheckpointInfo& info = job.session.info;
  info.epoch = epochs_done;
  info.step_in_epoch = step;
  info.epoch_so_far = step > 0 ? so_far : EpochSoFar{};
  info.global_step = job.session.position.global_step;
  info.test_accuracy = -1;
  if (job.outputs != nullptr) {
    job.outputs->save_latest(job.session.checkpoint_bytes());
    job.outputs->finished(false);
  }
  // --checkpoint, unless another run took it over (then last.pt).
  const std::string latest =
      (job.outputs != nullptr ? job.outputs->latest() : job.paths.checkpoint).string();
  // --time fits the epochs after the first: stopped before, the resume
  // trains the count config.toml holds, the one --epochs gave.
  const std::string unfitted =
      job.budget.active() && epochs_done == 0
          ? fmt::format(
                " (--time stopped before it fitted the epochs to its budget: the resumed "
                "run trains --epochs {}; add --epochs N for another count)",
                job.session.position.epochs)
          : "";
  throw Interrupted(
      fmt::format("interrupted ({}) {}: checkpoint written to {}; resume with: {} "
                  "--config {} --resume {}{}",
                  stop_signal() != 0 ? fmt::format("signal {}", stop_signal())
                                     : std::string("a signal to another process of the run"),
                  where, latest, shell_word(job.env.program),
                  shell_word((job.paths.run_dir / "config.toml").string()), shell_word(latest),
                  unfitted),
      /*announce=*/job.dist.is_main());
}

// `test` is null on an epoch without evaluation (--eval-every), `val`
// without a validation split.
EpochMetrics metrics_of(int64_t epoch, const EpochStats& stats, const EvalResult* test,
                        const EvalResult* val, double eval_seconds) {
  EpochMetrics m;
  m.epoch = epoch;
  m.train_loss = stats.loss;
  m.train_accuracy = stats.accuracy;
  m.tested = test != nullptr;
  if (test != nullptr) {
    m.test_loss = test->loss;
    m.test_accuracy = test->accuracy();
    if (test->has_top5()) m.test_top5 = test->top5_accuracy();
  }
  if (val != nullptr) {
    m.val_loss = val->loss;
    m.val_accuracy = val->accuracy();
  }
  m.lr = stats.last_lr;
  m.seconds = stats.seconds;
  m.images_per_second = stats.seconds > 0 ? static_cast<double>(stats.images) / stats.seconds : 0;
  m.eval_seconds = eval_seconds;
  m.peak_memory_bytes = stats.peak_memory_bytes;
  return m;
}

bool evaluates(const LoopSpec& loop, const EpochPosition& at) {
  return at.epoch == at.epochs || at.epoch % loop.eval_every == 0;
}

// Validation (when held out) and test, at --tta; nothing on skipped epochs.
EpochEvaluation evaluate_epoch(const TrainingJob& job, const torch::Device& device) {
  EpochEvaluation out;
  if (!evaluates(job.loop, job.session.position)) return out;
  DeviceTimer timer(device);
  timer.start();
  const ProgressBarOptions progress =
      eval_progress_options(job.env.progress_bar, job.loop.log_interval_s);
  const OomAdvice advice{"--eval-batch-size", job.loop.eval_batch_size, job.loop.model, device,
                         job.loop.precision,  job.data.test.size()};
  const CpuSettingsGuard cpu_settings(job.threads.threads(), /*onednn=*/true);
  auto evaluate_on = [&](const DeviceDataset& data) {
    return with_oom_advice(advice, [&] {
      return evaluate(
          job.session.shown_model(), data,
          {.batch_size = job.loop.eval_batch_size,
           .precision = job.loop.precision,
           .num_classes = static_cast<int64_t>(job.data.class_names.size()),
           .tta = job.loop.tta,
           .dist = &job.dist,
           .progress = job.dist.is_main() ? &progress : nullptr,
           .before_batch = [&job](int64_t b) { job.threads.at_boundary("evaluation batch", b); }});
    });
  };
  if (job.data.val) out.val = evaluate_on(*job.data.val);
  // No test split (--val-split on data without one): no test figure at all,
  // rather than the 0% of an evaluation on no images. An image folder's val/
  // serving as the test split is evaluated once.
  if (!job.data.test_is_val.empty() && out.val) {
    out.test = out.val;
  } else if (job.data.test.size() > 0) {
    out.test = evaluate_on(job.data.test);
  }
  out.seconds = timer.stop();
  out.evaluated = true;
  return out;
}

// The epoch's line, metrics row, TensorBoard record and checkpoints.
EpochMetrics record_epoch(const TrainingJob& job, const EpochStats& stats,
                          const EpochEvaluation& eval) {
  const int64_t epoch = job.session.position.epoch;
  EpochMetrics m = metrics_of(epoch, stats, eval.test ? &*eval.test : nullptr,
                              eval.val ? &*eval.val : nullptr, eval.seconds);
  m.top5_column = static_cast<int64_t>(job.data.class_names.size()) > kTop5Above;
  spdlog::info("{}", format_epoch_line(m, job.session.position.epochs));
  if (const GradScaler& scaler = *job.session.scaler; scaler.enabled()) {
    spdlog::info("epoch {}: {} of {} steps skipped for inf/NaN gradients, loss scale now {:g}",
                 epoch, stats.skipped_steps, stats.steps, scaler.scale_value());
  }
  CheckpointInfo& info = job.session.info;
  info.epoch = epoch;
  info.step_in_epoch = 0;
  info.global_step = job.session.position.global_step;
  info.test_accuracy = m.has_test() ? m.test_accuracy : -1;  // -1: not measured
  const bool best = eval.evaluated && m.selection_accuracy() > info.best_accuracy;
  if (best) info.best_accuracy = m.selection_accuracy();
  if (job.outputs != nullptr) {
    job.outputs->epoch_done(m, eval.test ? &*eval.test : nullptr, job.data.class_names,
                            job.session.checkpoint_bytes(), best);
  }
  return m;
}

// The run's length from here on: the position, every group's schedule, and
// the settings the checkpoints and the run folder's config.toml keep (the
// count, --time dropped, so that --resume continues to it).
void set_run_epochs(const TrainingJob& job, int64_t epochs) {
  job.session.position.epochs = epochs;
  job.session.groups->set_run_epochs(epochs);
  job.session.info.config_toml = job.paths.record.with_epochs(epochs).toml();
  if (job.outputs != nullptr) job.outputs->settings_changed(job.session.info.config_toml);
}

// --time, after an epoch that is not the run's last: the epochs fitted to
// the budget's rest (time_budget.h), rank 0's count on every rank. The first
// fit is always said, later ones when they change the count.
void fit_to_budget(const TrainingJob& job, const torch::Device& device) {
  const EpochPosition& at = job.session.position;
  if (!job.budget.active() || at.epoch >= at.epochs) return;
  int64_t epochs = job.budget.fit(at.epoch);
  if (job.dist.world_size() > 1) {
    torch::Tensor count = torch::full({1}, epochs, torch::dtype(torch::kInt64).device(device));
    job.dist.broadcast({count});
    epochs = count.item<int64_t>();
  }
  const bool changed = epochs != at.epochs;
  if (!changed && at.epoch > 1) return;
  const double elapsed = job.budget.elapsed_s();
  const double before = job.budget.before_first_s();
  spdlog::info(
      "--time {:g} min: {} epochs fit it ({:.1f} s before the first step, then {:.1f} s an "
      "epoch); {}{}",
      job.loop.time_s / 60, epochs, before, (elapsed - before) / static_cast<double>(at.epoch),
      changed ? "the schedule now spans them" : "the schedule stands",
      epochs == options::kMaxEpochs ? " (the most --epochs takes: the run ends before the budget)"
                           : "");
  if (changed) set_run_epochs(job, epochs);
  // The least a fit gives is one more epoch: a budget shorter than that is
  // said, with the end to expect, rather than passed without a word.
  const double end_s = elapsed + static_cast<double>(epochs - at.epoch) * (elapsed - before) /
                                     static_cast<double>(at.epoch);
  if (job.dist.is_main() && epochs == at.epoch + 1 && end_s > 1.1 * job.loop.time_s) {
    spdlog::warn(
        "--time {:g} min is shorter than the {} epochs a run under it trains at the least: it "
        "ends after about {:.0f} s; give a longer --time, or --epochs alone",
        job.loop.time_s / 60, epochs, end_s);
  }
}

}  // namespace

TrainResult run_epochs(const TrainingJob& job, const torch::Device& device) {
  TrainResult result{.model = job.loop.model,
                     .device = device.str(),
                     .history = {},
                     .final_eval = {},
                     .class_names = job.data.class_names,
                     .checkpoint = job.paths.checkpoint,
                     .best_checkpoint = job.paths.run_dir / "best.pt",
                     .run_dir = job.paths.run_dir,
                     .test_is_val = job.data.test_is_val};
  const EpochOptions options = epoch_options(job);
  const OomAdvice train_oom{"--batch-size", job.loop.batch_size, job.loop.model,
                            device,         job.loop.precision,  job.data.train.size()};
  EpochPosition& position = job.session.position;
  EpochState shared(job.data.train.device());  // the running totals; --cuda-graph's step, once
  // --time: at least two epochs (one fit), and from the start the saved
  // settings without --time, so that an interrupted run resumes as printed.
  if (job.budget.active()) set_run_epochs(job, std::max<int64_t>(position.epochs, 2));
  for (; position.epoch <= position.epochs; ++position.epoch) {
    const EpochPlan plan =
        shard_plan(job.data.train.plan_epoch(/*shuffle=*/true, job.recipe.augmentation,
                                             job.loop.seed, position.epoch),
                   job.dist.rank(), job.dist.world_size());
    const EpochStats later = with_oom_advice(train_oom, [&] {
      const CpuSettingsGuard cpu_settings(job.threads.threads(), job.loop.cpu_onednn);
      return train_one_epoch(*job.session.learner, job.data.train, plan, options, position,
                             &shared);
    });
    position.global_step += later.steps - position.first_step;
    const EpochStats stats = add_earlier_steps(later, position.so_far);  // the whole epoch's
    if (stats.interrupted) {
      stop_run(job, position.epoch - 1, stats.steps, so_far_of(stats),
               fmt::format("in epoch {} after step {}", position.epoch, stats.steps));
    }
    position.first_step = 0;
    position.so_far = {};
    std::optional<EpochEvaluation> eval;
    try {
      eval = evaluate_epoch(job, device);
    } catch (const Interrupted&) {
      // A stop during evaluation keeps the epoch's training: the checkpoint
      // is that of the epoch's last step, with its figures, so the resumed
      // run trains nothing more of it, evaluates it and records it.
    }
    if (!eval) {
      stop_run(job, position.epoch - 1, stats.steps, so_far_of(stats),
               fmt::format("while evaluating epoch {}", position.epoch));
    }
    result.history.push_back(record_epoch(job, stats, *eval));
    if (eval->test) result.final_eval = *eval->test;
    fit_to_budget(job, device);
  }
  // --checkpoint, unless another run took it over (then last.pt).
  if (job.outputs != nullptr) result.checkpoint = job.outputs->latest();
  return result;
}

}  // namespace cifar
