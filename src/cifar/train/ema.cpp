// ema.cpp: --ema DECAY, an exponential moving average of the weights, as
// timm's ModelEmaV2 keeps it (extension.h).
//
// After every optimiser step each parameter's average moves towards it,
//   ema = decay * ema + (1 - decay) * live,
// and the buffers (BatchNorm's running statistics and counter) and the
// parameters frozen from the start are copied.
// The average starts as the model the run starts from; it is the model the
// run evaluates and saves (the checkpoint's model, best.pt,
// model.safetensors), so cifar-eval, cifar-predict and cifar-export use it.
// The checkpoint keeps the live weights beside it, in the training state
// under "ema" ("live.<name>" for every parameter and buffer), and a resumed
// run continues both exactly.
#include <spdlog/spdlog.h>
#include <torch/torch.h>

#include "cifar/train/extension.h"

namespace cifar {
namespace {

class Ema final : public Extension {
 public:
  Ema(ClassifierImpl& live, Classifier average, double decay)
      : live_(live), average_(std::move(average)), decay_(decay) {
    torch::NoGradGuard no_grad;
    const auto live_params = live_.named_parameters();
    const auto live_buffers = live_.named_buffers();
    average_->to(live_params.values().front().device());
    for (auto& item : average_->named_parameters()) {
      const torch::Tensor& from = live_params[item.key()];
      item.value().set_data(from.detach().clone());  // the live layout (channels-last) kept
      item.value().requires_grad_(false);
      // A parameter frozen from the start (--freeze-body's body, airbench94's
      // whitening filters) is copied as the buffers are: its average is
      // itself, which decay * x + (1 - decay) * x only rounds to.
      (from.requires_grad() ? averages_ : copies_).push_back(item.value());
      (from.requires_grad() ? lives_ : sources_).push_back(from);
    }
    for (auto& item : average_->named_buffers()) {
      const torch::Tensor& from = live_buffers[item.key()];
      item.value().set_data(from.detach().clone());
      copies_.push_back(item.value());
      sources_.push_back(from);
    }
  }

  void after_step() override {
    torch::NoGradGuard no_grad;
    torch::_foreach_mul_(averages_, decay_);                // ema = decay * ema
    torch::_foreach_add_(averages_, lives_, 1.0 - decay_);  //     + (1 - decay) * live
    for (size_t i = 0; i < copies_.size(); ++i) copies_[i].copy_(sources_[i]);
  }

  ClassifierImpl* shown_model() override { return average_.get(); }

  void save(torch::serialize::OutputArchive& archive) const override {
    for (const auto& item : live_.named_parameters()) {
      archive.write("live." + item.key(), item.value(), /*is_buffer=*/true);
    }
    for (const auto& item : live_.named_buffers()) {
      archive.write("live." + item.key(), item.value(), /*is_buffer=*/true);
    }
  }

  // The checkpoint's model was the average (loaded into both); the live
  // weights come back from here.
  void load(torch::serialize::InputArchive& archive) override {
    torch::NoGradGuard no_grad;
    auto read = [&](const std::string& name, torch::Tensor& into) {
      torch::Tensor saved;
      archive.read("live." + name, saved, /*is_buffer=*/true);
      TORCH_CHECK(saved.sizes() == into.sizes(), "--ema: the live ", name, " has shape ",
                  saved.sizes(), ", expected ", into.sizes());
      into.copy_(saved);
    };
    for (auto& item : live_.named_parameters()) read(item.key(), item.value());
    for (auto& item : live_.named_buffers()) read(item.key(), item.value());
  }

 private:
  ClassifierImpl& live_;
  Classifier average_;
  double decay_;
  std::vector<torch::Tensor> averages_, lives_;  // the parameters, averaged
  std::vector<torch::Tensor> copies_, sources_;  // the buffers and frozen parameters, copied
};

}  // namespace

ExtensionEntry ema_entry() {
  return {.name = "ema", .make = [](const ExtensionContext& c) -> std::unique_ptr<Extension> {
            if (c.ema <= 0) return nullptr;
            spdlog::info("--ema {:g}: the run evaluates and saves a moving average of the weights",
                         c.ema);
            return std::make_unique<Ema>(c.model, c.build(), c.ema);
          }};
}

}  // namespace cifar
