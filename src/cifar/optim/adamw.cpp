// adamw.cpp: --optimizer adamw, LibTorch's own torch::optim::AdamW behind
// the Optimizer interface (optimizer.h), and its registry entry.
//
// The update is PyTorch's AdamW (decoupled weight decay) with --weight-decay
// and the hyperparameters its entry declares, --beta1, --beta2 and --eps
// (PyTorch's defaults: betas 0.9 and 0.999, eps 1e-8); the rate comes with
// each step, from the group's schedule. The state a checkpoint keeps is AdamW's own, per
// parameter i that has taken a step: "adamw.step.<i>" (int64), "adamw.exp_avg.<i>"
// and "adamw.exp_avg_sq.<i>"; a resumed run continues them bit for bit.
#include <fmt/format.h>
#include <torch/torch.h>

#include "cifar/optim/optimizer_registry.h"

namespace cifar {
namespace {

class AdamW final : public Optimizer {
 public:
  AdamW(std::vector<torch::Tensor> params, torch::optim::AdamWOptions options)
      : params_(params), adam_(params, options) {}

  void zero_grad() override { adam_.zero_grad(/*set_to_none=*/true); }

  void step(double lr) override {
    for (auto& group : adam_.param_groups()) {
      static_cast<torch::optim::AdamWOptions&>(group.options()).lr(lr);
    }
    adam_.step();
  }

  const char* name() const override { return "adamw"; }

  void save(torch::serialize::OutputArchive& archive) const override {
    const auto& states = adam_.state();
    for (size_t i = 0; i < params_.size(); ++i) {
      const auto it = states.find(params_[i].unsafeGetTensorImpl());
      if (it == states.end()) continue;  // no step taken yet
      const auto& s = static_cast<const torch::optim::AdamWParamState&>(*it->second);
      archive.write(fmt::format("adamw.step.{}", i), torch::tensor(s.step(), torch::kInt64),
                    /*is_buffer=*/true);
      archive.write(fmt::format("adamw.exp_avg.{}", i), s.exp_avg(), /*is_buffer=*/true);
      archive.write(fmt::format("adamw.exp_avg_sq.{}", i), s.exp_avg_sq(), /*is_buffer=*/true);
    }
  }

  void load(torch::serialize::InputArchive& archive) override {
    auto& states = adam_.state();
    states.clear();
    for (size_t i = 0; i < params_.size(); ++i) {
      torch::Tensor step, exp_avg, exp_avg_sq;
      if (!archive.try_read(fmt::format("adamw.step.{}", i), step, /*is_buffer=*/true)) continue;
      archive.read(fmt::format("adamw.exp_avg.{}", i), exp_avg, /*is_buffer=*/true);
      archive.read(fmt::format("adamw.exp_avg_sq.{}", i), exp_avg_sq, /*is_buffer=*/true);
      const torch::Tensor& p = params_[i];
      TORCH_CHECK(exp_avg.sizes() == p.sizes() && exp_avg_sq.sizes() == p.sizes(),
                  "AdamW state for parameter ", i, " has shape ", exp_avg.sizes(), ", expected ",
                  p.sizes());
      auto state = std::make_unique<torch::optim::AdamWParamState>();
      state->step(step.item<int64_t>());
      state->exp_avg(exp_avg.to(p.device(), p.scalar_type()).clone(torch::MemoryFormat::Preserve));
      state->exp_avg_sq(
          exp_avg_sq.to(p.device(), p.scalar_type()).clone(torch::MemoryFormat::Preserve));
      states[p.unsafeGetTensorImpl()] = std::move(state);
    }
  }

 private:
  std::vector<torch::Tensor> params_;
  torch::optim::AdamW adam_;
};

}  // namespace

OptimizerEntry adamw_entry() {
  static const Hyperparameter kBeta1{
      .name = "beta1", .help = kBeta1Help, .value = 0.9, .max_open = true};
  static const Hyperparameter kBeta2{
      .name = "beta2", .help = kBeta2Help, .value = 0.999, .max_open = true};
  static const Hyperparameter kEps{.name = "eps",
                                   .help = "term added to the denominator for stability",
                                   .value = 1e-8,
                                   .max = 1,
                                   .min_open = true};
  return {.name = "adamw",
          .help = "LibTorch's AdamW with --weight-decay, --beta1, --beta2 and --eps",
          .settings = {"lr", "weight-decay"},
          .hyperparameters = {kBeta1, kBeta2, kEps},
          .state = "step counts, first and second moments",
          .graph_step = false,
          .make = [](std::vector<torch::Tensor> params,
                     const OptimizerSettings& s) -> std::unique_ptr<Optimizer> {
            return std::make_unique<AdamW>(std::move(params),
                                           torch::optim::AdamWOptions()
                                               .weight_decay(s.weight_decay)
                                               .betas({s.get(kBeta1), s.get(kBeta2)})
                                               .eps(s.get(kEps)));
          }};
}

}  // namespace cifar
