// step.cpp: forward, loss and the eager optimizer step.
#include "cifar/step.h"

#include "cifar/autocast.h"

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
    loss = F::cross_entropy(logits.to(torch::kFloat), batch.labels,
                            F::CrossEntropyFuncOptions().label_smoothing(options.label_smoothing));
  }
  {
    torch::NoGradGuard no_grad;
    totals.loss_sum.add_(loss.detach(), static_cast<double>(batch.labels.size(0)));
    totals.correct.add_(logits.argmax(1).eq(batch.labels).sum());
  }
  return loss;
}

namespace {

class EagerStep final : public TrainStep {
 public:
  EagerStep(ClassifierImpl& model, Sgd& optimizer, const StepOptions& options,
            RunningTotals& totals)
      : model_(model), optimizer_(optimizer), options_(options), totals_(totals) {}

  void run(const Batch& batch, double lr) override {
    const torch::Tensor loss = forward_loss(model_, batch, options_, totals_);
    optimizer_.zero_grad();
    loss.backward();
    optimizer_.step(lr);
  }

 private:
  ClassifierImpl& model_;
  Sgd& optimizer_;
  StepOptions options_;
  RunningTotals& totals_;
};

}  // namespace

std::unique_ptr<TrainStep> make_eager_step(ClassifierImpl& model, Sgd& optimizer,
                                           const StepOptions& options, RunningTotals& totals) {
  return std::make_unique<EagerStep>(model, optimizer, options, totals);
}

}  // namespace cifar
