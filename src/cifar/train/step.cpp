// step.cpp: forward, loss and the eager optimizer step.
#include "cifar/train/step.h"

#include <spdlog/spdlog.h>

#include "cifar/platform/autocast.h"
#include "cifar/platform/interrupt.h"

namespace cifar {
namespace F = torch::nn::functional;

RunningTotals::RunningTotals(const torch::Device& device)
    : loss_sum(torch::zeros({}, torch::TensorOptions().dtype(torch::kDouble).device(device))),
      correct(torch::zeros({}, torch::TensorOptions().dtype(torch::kInt64).device(device))) {}

torch::Tensor forward_loss(ClassifierImpl& model, const Batch& batch, const StepSpec& options,
                           RunningTotals& totals, bool autocast_cache) {
  torch::Tensor logits, loss;
  {
    AutocastScope autocast(batch.images.device(), options.precision, autocast_cache);
    logits = model.forward(batch.images);  // (B, classes)
    auto how = F::CrossEntropyFuncOptions().label_smoothing(options.settings.label_smoothing);
    if (options.sum_loss) how.reduction(torch::kSum);
    loss = F::cross_entropy(logits.to(torch::kFloat), batch.labels, how);
  }
  {
    torch::NoGradGuard no_grad;
    const double per_loss = options.sum_loss ? 1.0 : static_cast<double>(batch.labels.size(0));
    totals.loss_sum.add_(loss.detach(), per_loss);
    totals.correct.add_(logits.argmax(1).eq(batch.labels).sum());
  }
  return loss;
}

namespace {

class EagerStep final : public TrainStep {
 public:
  EagerStep(Learner& t, const StepSpec& options, RunningTotals& totals)
      : t_(t), options_(options), totals_(totals) {
    for (const auto& g : t_.groups.groups())
      params_.insert(params_.end(), g.params.begin(), g.params.end());
  }

  bool run(const Batch& batch, int64_t global_step) override {
    t_.dist.broadcast_buffers(t_.model);  // BatchNorm statistics from rank 0, as DDP does
    const torch::Tensor loss = forward_loss(t_.model, batch, options_, totals_);
    t_.groups.zero_grad();
    t_.scaler.scale(loss).backward();      // the loss itself unless --amp fp16
    t_.averager.start(stop_requested());   // backward is done: launch the bucket all-reduces
    const bool stop = t_.averager.wait();  // and wait for them at once: no overlap with backward
    const bool finite =
        t_.scaler.unscale(params_, &t_.dist);  // true unless --amp fp16 found inf/NaN
    if (finite) {
      t_.groups.step(global_step);
    } else {
      t_.groups.freeze_done(global_step + 1);  // weights and momentum stay; the schedule moves on
    }
    const double scale = finite ? 0.0 : t_.scaler.scale_value();
    t_.scaler.update();
    if (!finite) {
      spdlog::info("step {}: inf/NaN gradients at loss scale {:g}: step skipped, scale now {:g}",
                   global_step, scale, t_.scaler.scale_value());
    }
    return stop;
  }

 private:
  Learner& t_;
  std::vector<torch::Tensor> params_;  // every group's
  StepSpec options_;
  RunningTotals& totals_;
};

}  // namespace

std::unique_ptr<TrainStep> make_eager_step(Learner& learner, const StepSpec& options,
                                           RunningTotals& totals) {
  return std::make_unique<EagerStep>(learner, options, totals);
}

}  // namespace cifar
