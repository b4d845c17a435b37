// replayed_step.cpp: recording, re-recording and replaying the step body.
#include "cifar/train/replayed_step.h"

#include <spdlog/spdlog.h>

#include "cifar/platform/guards.h"
#include "cifar/platform/interrupt.h"

namespace cifar {
namespace {

// The recording's input: the first replay's batch is copied in before it runs.
torch::Tensor static_like(const torch::Tensor& t) {
  return torch::empty_like(t, torch::MemoryFormat::Preserve);
}

// Replays by running the body again; warms up as a graph does, so that the
// tests see the warm-up put everything back.
class Uncaptured final : public Replayer {
 public:
  void record(const std::function<void()>& warm_up, const std::function<void()>& body) override {
    warm_up();
    body_ = body;
  }
  void replay() override { body_(); }

 private:
  std::function<void()> body_;
};

}  // namespace

ReplayedStep::ReplayedStep(Learner& learner, const StepSpec& options, RunningTotals& totals,
                           std::function<std::unique_ptr<Replayer>()> make_replayer)
    : t_(learner),
      options_(options),
      totals_(totals),
      make_replayer_(std::move(make_replayer)),
      eager_(make_eager_step(learner, options, totals)) {
  const auto device = totals.loss_sum.device();
  for (size_t i = 0; i < t_.groups.groups().size(); ++i) {
    rates_.push_back(torch::zeros({}, torch::TensorOptions().dtype(torch::kFloat).device(device)));
  }
}

bool ReplayedStep::prepare(const Batch& example) {
  const std::vector<bool> training = t_.groups.training();
  if (replayer_ && training == training_ && x_.sizes() == example.images.sizes() &&
      y_.sizes() == example.labels.sizes()) {
    return false;
  }
  replayer_.reset();  // the old recording and its memory go first
  x_ = static_like(example.images);
  y_ = static_like(example.labels);
  x_.copy_(example.images);
  y_.copy_(example.labels);
  std::unique_ptr<Replayer> replayer = make_replayer_();
  replayer->record([this] { warm_up(); }, [this] { body(); });
  replayer_ = std::move(replayer);  // only once recorded: a failed one is never replayed
  training_ = training;
  ++recordings_;
  return true;
}

bool ReplayedStep::run(const Batch& batch, int64_t global_step) {
  const std::vector<double> rates = t_.groups.rates(global_step);
  const std::vector<bool> training = t_.groups.training();
  for (size_t i = 0; i < rates.size(); ++i) {
    if (training[i] && rates[i] <= 0) {
      ++eager_steps_;
      return eager_->run(batch, global_step);
    }
  }
  if (prepare(batch)) {
    spdlog::info(
        "--cuda-graph: the training step was captured again at step {} (its batch shape or the "
        "parameter groups that train changed); this capture counts in the epoch's time",
        global_step);
  }
  for (size_t i = 0; i < rates.size(); ++i) rates_[i].fill_(rates[i]);
  x_.copy_(batch.images, /*non_blocking=*/true);
  y_.copy_(batch.labels, /*non_blocking=*/true);
  replayer_->replay();
  ++replays_;
  t_.groups.freeze_done(global_step + 1);
  return stop_requested();  // one process only (resolve/ refuses --cuda-graph with several)
}

void ReplayedStep::body() {
  // Gradients none, so that backward writes them afresh (a graph records
  // where): replays never add to an earlier step's.
  t_.groups.zero_grad();
  forward_loss(t_.model, Batch{x_, y_}, options_, totals_, /*autocast_cache=*/false).backward();
  t_.groups.device_step(rates_);
}

// The body three times on throw-away totals; then every parameter, buffer
// and optimiser state tensor it touched is put back, the gradients dropped,
// and the device's random-number generator put back where it was, so that
// the replays draw (dropout) what the eager steps would.
void ReplayedStep::warm_up() {
  const GeneratorStateGuard random_numbers(x_.device());
  std::vector<torch::Tensor> state = t_.groups.state_tensors(), saved;
  for (const auto& t : t_.model.parameters()) state.push_back(t);
  for (const auto& t : t_.model.buffers()) state.push_back(t);
  torch::NoGradGuard no_grad;
  for (const auto& t : state) saved.push_back(t.detach().clone());
  RunningTotals scratch(x_.device());
  for (int i = 0; i < 3; ++i) {
    t_.groups.zero_grad();
    const torch::AutoGradMode grad(true);
    forward_loss(t_.model, Batch{x_, y_}, options_, scratch, /*autocast_cache=*/false).backward();
    t_.groups.device_step(rates_);
  }
  t_.groups.zero_grad();
  for (size_t i = 0; i < state.size(); ++i) state[i].copy_(saved[i]);
}

std::unique_ptr<ReplayedStep> make_uncaptured_step(Learner& learner, const StepSpec& options,
                                                   RunningTotals& totals) {
  return std::make_unique<ReplayedStep>(learner, options, totals,
                                        [] { return std::make_unique<Uncaptured>(); });
}

}  // namespace cifar
