// lion.cpp: --optimizer lion, the sign-momentum optimiser of Chen et al.,
// "Symbolic Discovery of Optimization Algorithms" (2023), as lion-pytorch
// and timm implement it, and its registry entry.
//
// For each parameter p with gradient g and momentum m (zeros at start), at
// the step's rate lr:
//   p <- p * (1 - lr * weight_decay)                    (decoupled decay)
//   p <- p - lr * sign(beta1 * m + (1 - beta1) * g)
//   m <- beta2 * m + (1 - beta2) * g
// with --beta1 (0.9), --beta2 (0.99) and --weight-decay. Its rates are 3-10x
// smaller than AdamW's for the same model. The momentum buffers go into a
// checkpoint as "momentum.<i>" (momentum_state.h).
#include <torch/torch.h>

#include "cifar/optim/momentum_state.h"
#include "cifar/optim/optimizer_registry.h"

namespace cifar {
namespace {

class Lion final : public Optimizer {
 public:
  Lion(std::vector<torch::Tensor> params, double beta1, double beta2, double weight_decay)
      : params_(std::move(params)), beta1_(beta1), beta2_(beta2), weight_decay_(weight_decay) {
    for (const auto& p : params_) momentum_.push_back(torch::zeros_like(p));
  }

  void zero_grad() override {
    for (auto& p : params_) p.mutable_grad() = torch::Tensor();
  }

  void step(double lr) override {
    torch::NoGradGuard no_grad;
    for (size_t i = 0; i < params_.size(); ++i) {
      torch::Tensor& p = params_[i];
      if (!p.grad().defined()) continue;
      const torch::Tensor& g = p.grad();
      torch::Tensor& m = momentum_[i];
      if (weight_decay_ != 0) p.mul_(1 - lr * weight_decay_);
      p.add_(torch::sign(m * beta1_ + g * (1 - beta1_)), -lr);
      m.mul_(beta2_).add_(g, 1 - beta2_);
    }
  }

  const char* name() const override { return "lion"; }
  void save(torch::serialize::OutputArchive& archive) const override {
    save_momentum(archive, momentum_);
  }
  void load(torch::serialize::InputArchive& archive) override { load_momentum(archive, momentum_); }

 private:
  std::vector<torch::Tensor> params_;
  std::vector<torch::Tensor> momentum_;  // one buffer per parameter
  double beta1_, beta2_, weight_decay_;
};

}  // namespace

OptimizerEntry lion_entry() {
  // The names, help and ranges AdamW's declare; Lion's own defaults.
  static const Hyperparameter kBeta1{
      .name = "beta1", .help = kBeta1Help, .value = 0.9, .max_open = true};
  static const Hyperparameter kBeta2{
      .name = "beta2", .help = kBeta2Help, .value = 0.99, .max_open = true};
  return {.name = "lion",
          .help = "Lion (sign of interpolated momentum) with --weight-decay, --beta1, --beta2",
          .settings = {"lr", "weight-decay"},
          .hyperparameters = {kBeta1, kBeta2},
          .state = "momentum buffers",
          .graph_step = false,
          .make = [](std::vector<torch::Tensor> params,
                     const OptimizerSettings& s) -> std::unique_ptr<Optimizer> {
            return std::make_unique<Lion>(std::move(params), s.get(kBeta1), s.get(kBeta2),
                                          s.weight_decay);
          }};
}

}  // namespace cifar
