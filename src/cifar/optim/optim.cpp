// optim.cpp: the multi-tensor SGD update.
#include "cifar/optim/optim.h"

#include "cifar/optim/momentum_state.h"

namespace cifar {

Sgd::Sgd(std::vector<torch::Tensor> params, SgdOptions options)
    : params_(std::move(params)), options_(options) {
  TORCH_CHECK(options_.momentum() >= 0, "momentum must be >= 0, got ", options_.momentum());
  TORCH_CHECK(options_.weight_decay() >= 0, "weight decay must be >= 0, got ",
              options_.weight_decay());
  TORCH_CHECK(!options_.nesterov() || options_.momentum() > 0,
              "Nesterov momentum needs a momentum > 0");
  momentum_.reserve(params_.size());
  for (const auto& p : params_) momentum_.push_back(torch::zeros_like(p));
}

void Sgd::zero_grad() {
  for (auto& p : params_) p.mutable_grad().reset();
}

Sgd::Active Sgd::active() const {
  Active a;
  for (size_t i = 0; i < params_.size(); ++i) {
    if (!params_[i].grad().defined()) continue;
    a.params.push_back(params_[i]);
    a.grads.push_back(params_[i].grad());
    a.bufs.push_back(momentum_[i]);
  }
  if (a.params.empty()) return a;
  if (options_.weight_decay() != 0) {
    torch::_foreach_add_(a.grads, a.params, options_.weight_decay());  // g += wd * p
  }
  if (options_.momentum() != 0) {
    torch::_foreach_mul_(a.bufs, options_.momentum());  // b = m * b + g
    torch::_foreach_add_(a.bufs, a.grads);
    if (options_.nesterov()) torch::_foreach_add_(a.grads, a.bufs, options_.momentum());
  }
  return a;
}

// The update direction: g for plain SGD and Nesterov (g already holds
// g + m * b), the momentum buffer otherwise.
const std::vector<torch::Tensor>& Sgd::Active::direction(const SgdOptions& o) const {
  return (o.momentum() == 0 || o.nesterov()) ? grads : bufs;
}

void Sgd::step(double lr) {
  torch::NoGradGuard no_grad;
  const Active a = active();
  if (a.params.empty()) return;
  torch::_foreach_add_(a.params, a.direction(options_), -lr);  // p -= lr * d, as PyTorch's SGD
}

// lr * d is rounded before the subtraction, where step(double) fuses the
// two as PyTorch does: the same bits when lr is a power of 2, else within
// a rounding of each other.
void Sgd::step(const torch::Tensor& lr) {
  torch::NoGradGuard no_grad;
  const Active a = active();
  if (a.params.empty()) return;
  torch::_foreach_sub_(a.params, torch::_foreach_mul(a.direction(options_), lr));
}

void Sgd::save(torch::serialize::OutputArchive& archive) const {
  save_momentum(archive, momentum_);
}

void Sgd::load(torch::serialize::InputArchive& archive) {
  load_momentum(archive, momentum_);
}

}  // namespace cifar
