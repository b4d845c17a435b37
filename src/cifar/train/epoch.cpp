// epoch.cpp: the training loop over one epoch, and its progress ticker.
#include "cifar/train/epoch.h"

#include <fmt/format.h>
#include <spdlog/spdlog.h>

#include <chrono>
#include <cmath>
#include <optional>
#include <stdexcept>

#include "cifar/data/resolution.h"
#include "cifar/platform/gpu.h"
#include "cifar/report/progress_bar.h"
#include "cifar/train/cuda_graph.h"

namespace cifar {
namespace {
using Clock = std::chrono::steady_clock;

// `hint`: what to change, naming only options the run's recipe reads (StepSpec).
[[noreturn]] void throw_non_finite(double loss, const EpochPosition& p, int64_t step,
                                   const std::string& hint) {
  const char* what = std::isnan(loss) ? "NaN" : loss > 0 ? "+inf" : "-inf";
  throw std::runtime_error(fmt::format(
      "loss became {} in epoch {} (by step {}): training stopped, and the checkpoints of earlier "
      "epochs are kept as they were{}{}",
      what, p.epoch, step, hint.empty() ? "" : ". ", hint));
}

// Refreshes the progress display (a tqdm-like bar on a terminal, else a
// line every --log-interval seconds). The read-back of the running totals (a
// host sync on a GPU) happens only then, and a non-finite loss stops training
// there. Its img/s is all processes' (each trains its equal share), as the
// epoch line's.
class ProgressTicker {
 public:
  ProgressTicker(const EpochOptions& o, const EpochPosition& p, int64_t steps, int world_size)
      : bar_(fmt::format("epoch {}/{}", p.epoch, p.epochs), steps, bar_options(o, p)),
        options_(o),
        position_(p),
        world_size_(world_size),
        start_(Clock::now()) {}

  void tick(int64_t steps_done, int64_t images, const RunningTotals& totals) {
    if (!bar_.due()) return;
    const double mean = epoch_mean(totals.loss_sum.item<double>(), images, earlier().loss_sum);
    if (!std::isfinite(mean))
      throw_non_finite(mean, position_, steps_done, options_.step.non_finite_hint);
    const double accuracy =
        epoch_mean(static_cast<double>(totals.correct.item<int64_t>()), images, earlier().correct);
    const double seconds = std::chrono::duration<double>(Clock::now() - start_).count();
    ProgressMetrics metrics;
    metrics.rate = static_cast<double>(images * world_size_) / seconds;
    metrics.loss = mean;
    metrics.accuracy = accuracy;
    bar_.update(steps_done, metrics);
  }
  // The running loss every `loss_every` steps, whatever the display does.
  void record_loss(int64_t steps_done, int64_t images, const RunningTotals& totals) {
    if (!options_.on_loss || options_.loss_every <= 0 || steps_done % options_.loss_every != 0) {
      return;
    }
    const double mean = epoch_mean(totals.loss_sum.item<double>(), images, earlier().loss_sum);
    if (!std::isfinite(mean))
      throw_non_finite(mean, position_, steps_done, options_.step.non_finite_hint);
    options_.on_loss(position_.global_step + steps_done - position_.first_step, mean);
  }
  void finish() { bar_.finish(); }

 private:
  // A resumed epoch's steps before first_step (zero otherwise): their totals
  // over all processes, of which this process takes its share.
  const EpochSoFar& earlier() const { return position_.so_far; }
  // The epoch's running mean of `sum` over `images` since the (re)start and
  // the earlier steps' `earlier_sum`, so that the curve goes on across a resume.
  double epoch_mean(double sum, int64_t images, double earlier_sum) const {
    const double share = 1.0 / world_size_;
    return (sum + earlier_sum * share) /
           (static_cast<double>(images) + static_cast<double>(earlier().images) * share);
  }

  static ProgressBarOptions bar_options(const EpochOptions& o, const EpochPosition& p) {
    ProgressBarOptions b;
    b.interactive = o.progress_bar;
    b.refresh_seconds = 0.2;
    b.log_interval_seconds = o.log_interval_s;
    b.initial = p.first_step;
    return b;
  }

  ProgressBar bar_;
  const EpochOptions& options_;
  const EpochPosition& position_;
  int world_size_;
  Clock::time_point start_;
};

// Makes the run's graphed step the first time, and records it for this
// epoch's batches (epoch.h's EpochState), timed on its own.
void prepare_graph(Learner& t, const DeviceDataset& data, const EpochPlan& plan,
                   const EpochOptions& options, int64_t size, EpochState& run) {
  const auto start = Clock::now();
  if (!run.graphed) {
    run.graphed =
        make_graphed_step(t, data, plan, options.shape.batch_size, options.step, run.totals);
  }
  Batch example = data.batch(plan, 0, options.shape.batch_size);
  if (size > 0) example.images = resize_images(example.images, size);
  if (!run.graphed->prepare(example)) return;
  synchronize(data.device());
  const double seconds = std::chrono::duration<double>(Clock::now() - start).count();
  run.capture_seconds += seconds;
  spdlog::info(
      "--cuda-graph: the training step was captured in {:.2f} s for {}x{} px batches (warm-up "
      "included; not counted in the epochs' times)",
      seconds, example.images.size(2), example.images.size(3));
}

}  // namespace

EpochStats add_earlier_steps(EpochStats later, const EpochSoFar& earlier) {
  if (earlier.images == 0) return later;
  const auto n = static_cast<double>(later.images);
  const auto images = static_cast<double>(later.images + earlier.images);
  later.loss = (later.loss * n + earlier.loss_sum) / images;
  later.accuracy = (later.accuracy * n + earlier.correct) / images;
  if (later.images == 0) later.last_lr = earlier.last_lr;  // no step since: the rate then
  later.images += earlier.images;
  later.seconds += earlier.seconds;
  later.skipped_steps += earlier.skipped_steps;
  return later;
}

EpochSoFar so_far_of(const EpochStats& stats) {
  const auto n = static_cast<double>(stats.images);
  return {.images = stats.images,
          .loss_sum = stats.loss * n,
          .correct = stats.accuracy * n,
          .seconds = stats.seconds,
          .skipped_steps = stats.skipped_steps,
          .last_lr = stats.last_lr};
}

EpochStats train_one_epoch(Learner& t, const DeviceDataset& data, const EpochPlan& plan,
                           const EpochOptions& options, const EpochPosition& position,
                           EpochState* state) {
  const auto device = data.device();
  const int64_t n = plan.order.size(0);
  const bool graphed = options.shape.graphed;
  const int64_t steps = options.shape.steps;
  const int64_t batch_size = options.shape.batch_size;
  TORCH_CHECK(steps * batch_size < n + batch_size, "an epoch of ", n, " samples has no ", steps,
              " steps of ", batch_size);
  t.model.train();
  for (const auto& m : t.held_in_eval) m->eval();
  std::optional<EpochState> alone;
  EpochState& run = state != nullptr ? *state : alone.emplace(device);
  RunningTotals& totals = run.totals;
  totals.loss_sum.zero_();
  totals.correct.zero_();
  const int64_t size = training_resolution(options.resolutions, position.epoch);  // 0: as read
  if (size > 0)
    spdlog::info("epoch {}: training at {} px (--resolution-schedule)", position.epoch, size);
  if (graphed) prepare_graph(t, data, plan, options, size, run);
  EpochStats stats;
  const int64_t skipped_before = t.scaler.skipped_steps();
  reset_peak_memory(device);
  DeviceTimer timer(device);
  timer.start();
  {
    std::unique_ptr<TrainStep> eager;
    if (!graphed) eager = make_eager_step(t, options.step, totals);
    TrainStep* const step = graphed ? run.graphed.get() : eager.get();
    ProgressTicker ticker(options, position, steps, t.dist.world_size());
    int64_t s = position.first_step;
    while (s < steps) {
      const int64_t start = s * batch_size;
      const int64_t count = std::min(batch_size, n - start);
      Batch batch = data.batch(plan, start, count);                    // (B, 3, H, W)
      if (size > 0) batch.images = resize_images(batch.images, size);  // (B, 3, size, size)
      const int64_t global_step = position.global_step + (s - position.first_step);
      stats.last_lr = t.groups.lr(global_step);
      if (options.before_step) options.before_step(global_step);
      const bool stop = step->run(batch, global_step);
      stats.images += count;
      ++s;
      if (options.after_step) options.after_step(count);
      if (stop) {
        stats.interrupted = true;
        break;
      }
      ticker.tick(s, stats.images, totals);
      ticker.record_loss(s, stats.images, totals);
    }
    stats.steps = s;
    stats.skipped_steps = t.scaler.skipped_steps() - skipped_before;
    ticker.finish();
  }
  stats.seconds = timer.stop();
  stats.peak_memory_bytes = peak_memory_bytes(device);
  // The epoch's figures over all processes: one small all-reduce.
  auto sums =
      torch::stack({totals.loss_sum.to(torch::kDouble), totals.correct.to(torch::kDouble),
                    torch::tensor(static_cast<double>(stats.images), torch::kDouble).to(device)});
  t.dist.all_reduce_sum(sums);
  const auto host = sums.cpu();
  const double images = host[2].item<double>();
  stats.images = static_cast<int64_t>(images);
  if (images > 0) {
    stats.loss = host[0].item<double>() / images;
    stats.accuracy = host[1].item<double>() / images;
    if (!std::isfinite(stats.loss))
      throw_non_finite(stats.loss, position, stats.steps, options.step.non_finite_hint);
  }
  return stats;
}

}  // namespace cifar
