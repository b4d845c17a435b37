// optim.cpp: the multi-tensor SGD update and the schedules.
#include "cifar/optim/optim.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <numbers>

#include "cifar/core/errors.h"
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
  torch::_foreach_add_(a.params, a.direction(options_), -lr);  // p -= lr * d
}

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

Schedule parse_schedule(const std::string& text) {
  if (text == "constant") return Schedule::kConstant;
  if (text == "step") return Schedule::kStep;
  if (text == "cosine") return Schedule::kCosine;
  if (text == "onecycle") return Schedule::kOneCycle;
  if (text == "linear") return Schedule::kLinear;
  throw UsageError(fmt::format(
      "unknown schedule '{}': choose constant, step, cosine, onecycle or linear", text));
}

std::string to_string(Schedule schedule) {
  switch (schedule) {
    case Schedule::kConstant:
      return "constant";
    case Schedule::kStep:
      return "step";
    case Schedule::kCosine:
      return "cosine";
    case Schedule::kOneCycle:
      return "onecycle";
    case Schedule::kLinear:
      return "linear";
  }
  return "constant";
}

double lr_at(const ScheduleOptions& o, int64_t step) {
  const double total = static_cast<double>(std::max<int64_t>(1, o.epochs * o.steps_per_epoch));
  const double t = static_cast<double>(step);
  double warmup = o.warmup_epochs * static_cast<double>(o.steps_per_epoch);
  if (o.schedule == Schedule::kOneCycle) {
    if (warmup <= 0) warmup = 0.3 * total;
    warmup = std::min(warmup, total);
    const double start = o.base_lr / 25.0;
    if (t < warmup) return start + (o.base_lr - start) * t / warmup;
    const double rest = std::max(1.0, total - warmup);
    return o.base_lr * std::max(0.0, 1.0 - (t - warmup) / rest);
  }
  if (t < warmup) return o.base_lr * (t + 1) / warmup;
  const double progress = std::clamp(t / total, 0.0, 1.0);
  switch (o.schedule) {
    case Schedule::kConstant:
      return o.base_lr;
    case Schedule::kStep:
      return o.base_lr * (progress >= 0.75 ? 0.01 : progress >= 0.5 ? 0.1 : 1.0);
    case Schedule::kCosine:
      return o.base_lr * 0.5 * (1.0 + std::cos(std::numbers::pi * progress));
    case Schedule::kLinear:
      return o.base_lr * (1.0 - progress);
    case Schedule::kOneCycle:
      break;
  }
  return o.base_lr;
}

}  // namespace cifar
