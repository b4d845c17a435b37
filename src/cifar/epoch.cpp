// epoch.cpp: the training loop over one epoch, and its progress ticker.
#include "cifar/epoch.h"

#include <fmt/format.h>

#include <chrono>
#include <cmath>
#include <stdexcept>

#include "cifar/cuda_graph.h"
#include "cifar/gpu.h"
#include "cifar/interrupt.h"
#include "cifar/reporting.h"

namespace cifar {
namespace {
using Clock = std::chrono::steady_clock;

[[noreturn]] void throw_non_finite(double loss, const EpochOptions& o, const EpochPosition& p,
                                   int64_t step) {
  const char* what = std::isnan(loss) ? "NaN" : loss > 0 ? "+inf" : "-inf";
  throw std::runtime_error(fmt::format(
      "loss became {} in epoch {} (by step {}): training stopped, and the checkpoints of earlier "
      "epochs are kept as they were. Lower --lr (now {}), add --warmup-epochs, or use --amp off",
      what, p.epoch, step, o.schedule.base_lr));
}

// Refreshes the progress display at most every half second on a terminal,
// else every --log-interval seconds. The loss read-back (a host sync on a GPU)
// happens only then, and a non-finite loss stops training there.
class ProgressTicker {
 public:
  ProgressTicker(const EpochOptions& o, const EpochPosition& p, int64_t steps)
      : progress_(o.progress_bar, steps, fmt::format("epoch {}/{}", p.epoch, p.epochs)),
        options_(o),
        position_(p),
        steps_(steps),
        interval_(o.progress_bar ? 0.5 : o.log_interval_s),
        start_(Clock::now()),
        last_(start_) {}

  void tick(int64_t steps_done, int64_t images, const RunningTotals& totals) {
    const auto now = Clock::now();
    if (std::chrono::duration<double>(now - last_).count() < interval_) return;
    const double mean = totals.loss_sum.item<double>() / static_cast<double>(images);
    if (!std::isfinite(mean)) throw_non_finite(mean, options_, position_, steps_done);
    const double rate =
        static_cast<double>(images) / std::chrono::duration<double>(now - start_).count();
    const double eta = static_cast<double>((steps_ - steps_done) * options_.batch_size) / rate;
    progress_.update(steps_done, mean, rate, eta);
    last_ = now;
  }
  void finish() { progress_.finish(); }

 private:
  Progress progress_;
  const EpochOptions& options_;
  const EpochPosition& position_;
  int64_t steps_;
  double interval_;
  Clock::time_point start_;
  Clock::time_point last_;
};

}  // namespace

int64_t steps_in_epoch(int64_t n, int64_t batch_size, bool drop_last) {
  return drop_last ? n / batch_size : (n + batch_size - 1) / batch_size;
}

EpochStats train_one_epoch(ClassifierImpl& model, Sgd& optimizer, const DeviceDataset& data,
                           const EpochPlan& plan, const EpochOptions& options,
                           const EpochPosition& position) {
  const auto device = data.device();
  const int64_t n = data.size();
  const bool graphed = options.cuda_graph && device.is_cuda();
  const int64_t steps = steps_in_epoch(n, options.batch_size, graphed);
  const int64_t batch_size = options.batch_size;
  model.train();
  RunningTotals totals(device);
  EpochStats stats;
  reset_peak_memory(device);
  EpochTimer timer(device);
  timer.start();
  {
    const auto step = graphed ? make_graphed_step(model, optimizer, data.batch(plan, 0, batch_size),
                                                  options.step, totals)
                              : make_eager_step(model, optimizer, options.step, totals);
    ProgressTicker ticker(options, position, steps);
    int64_t s = position.first_step;
    while (s < steps) {
      const int64_t start = s * batch_size;
      const int64_t count = std::min(batch_size, n - start);
      const Batch batch = data.batch(plan, start, count);
      stats.last_lr = lr_at(options.schedule, position.global_step + (s - position.first_step));
      step->run(batch, stats.last_lr);
      stats.images += count;
      ++s;
      if (stop_requested()) {
        stats.interrupted = true;
        break;
      }
      ticker.tick(s, stats.images, totals);
    }
    stats.steps = s;
    ticker.finish();
  }
  stats.seconds = timer.stop();
  stats.peak_memory_bytes = peak_memory_bytes(device);
  if (stats.images > 0) {
    stats.loss = totals.loss_sum.item<double>() / static_cast<double>(stats.images);
    stats.accuracy =
        static_cast<double>(totals.correct.item<int64_t>()) / static_cast<double>(stats.images);
    if (!std::isfinite(stats.loss)) throw_non_finite(stats.loss, options, position, stats.steps);
  }
  return stats;
}

}  // namespace cifar
