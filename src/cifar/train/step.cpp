// step.cpp: forward, loss and the eager optimizer step.
#include "cifar/train/step.h"

#include "cifar/platform/autocast.h"
#include "cifar/platform/interrupt.h"

namespace cifar {
namespace F = torch::nn::functional;

RunningTotals::RunningTotals(const torch::Device& device)
    : loss_sum(torch::zeros({}, torch::TensorOptions().dtype(torch::kFloat).device(device))),
      correct(torch::zeros({}, torch::TensorOptions().dtype(torch::kInt64).device(device))) {}

torch::Tensor forward_loss(ClassifierImpl& model, const Batch& batch, const StepOptions& options,
                           RunningTotals& totals, bool autocast_cache) {
  torch::Tensor logits, loss;
  {
    AutocastScope autocast(batch.images.device(), options.amp, autocast_cache);
    logits = model.forward(batch.images);  // (B, 10)
    auto how = F::CrossEntropyFuncOptions().label_smoothing(options.loss.label_smoothing);
    if (options.loss.sum) how.reduction(torch::kSum);
    loss = F::cross_entropy(logits.to(torch::kFloat), batch.labels, how);
  }
  {
    torch::NoGradGuard no_grad;
    const double per_loss = options.loss.sum ? 1.0 : static_cast<double>(batch.labels.size(0));
    totals.loss_sum.add_(loss.detach(), per_loss);
    totals.correct.add_(logits.argmax(1).eq(batch.labels).sum());
  }
  return loss;
}

namespace {

class EagerStep final : public TrainStep {
 public:
  EagerStep(Learner& t, const StepOptions& options, RunningTotals& totals)
      : t_(t), options_(options), totals_(totals) {}

  bool run(const Batch& batch, int64_t global_step) override {
    t_.dist.broadcast_buffers(t_.model);  // BatchNorm statistics from rank 0, as DDP does
    const torch::Tensor loss = forward_loss(t_.model, batch, options_, totals_);
    t_.groups.zero_grad();
    loss.backward();
    t_.averager.start(stop_requested());   // backward is done: launch the bucket all-reduces
    const bool stop = t_.averager.wait();  // and wait for them at once: no overlap with backward
    t_.groups.step(global_step);
    return stop;
  }

 private:
  Learner& t_;
  StepOptions options_;
  RunningTotals& totals_;
};

}  // namespace

std::unique_ptr<TrainStep> make_eager_step(Learner& learner, const StepOptions& options,
                                           RunningTotals& totals) {
  return std::make_unique<EagerStep>(learner, options, totals);
}

}  // namespace cifar
