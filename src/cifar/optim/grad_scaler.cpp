// grad_scaler.cpp: loss scaling on ATen's own ops, as Python's GradScaler.
#include "cifar/optim/grad_scaler.h"

#include <ATen/ATen.h>
#include <fmt/format.h>

#include <cmath>
#include <map>
#include <stdexcept>

namespace cifar {

GradScaler::GradScaler(bool enabled, const torch::Device& device, GradScalerOptions options)
    : enabled_(enabled), options_(options) {
  if (!enabled_) return;
  if (!(options_.init_scale > 0) || !(options_.growth_factor > 1) ||
      !(options_.backoff_factor > 0 && options_.backoff_factor < 1) ||
      options_.growth_interval < 1) {
    throw std::invalid_argument(fmt::format(
        "GradScaler: init_scale {} must be > 0, growth_factor {} > 1, backoff_factor {} in "
        "(0, 1) and growth_interval {} >= 1",
        options_.init_scale, options_.growth_factor, options_.backoff_factor,
        options_.growth_interval));
  }
  const auto on = torch::TensorOptions().device(device);
  scale_ = torch::full({}, options_.init_scale, on.dtype(torch::kFloat));
  growth_tracker_ = torch::zeros({}, on.dtype(torch::kInt));
}

torch::Tensor GradScaler::scale(const torch::Tensor& loss) const {
  if (!enabled_) return loss;
  return loss * scale_;  // () float
}

bool GradScaler::unscale(const std::vector<torch::Tensor>& params, Distributed* dist) {
  if (!enabled_) return true;
  torch::NoGradGuard no_grad;
  // One call of the op per dtype, as Python groups them (all on one device here).
  std::map<torch::ScalarType, std::vector<torch::Tensor>> by_dtype;
  for (const auto& p : params) {
    const torch::Tensor& g = p.grad();
    if (!g.defined()) continue;
    if (g.scalar_type() == torch::kHalf) {
      throw std::invalid_argument(
          "GradScaler: a gradient is float16; keep the parameters in float32 under --amp fp16 "
          "(autocast casts them for each operation)");
    }
    TORCH_CHECK(g.device() == scale_.device(), "GradScaler: a gradient is on ", g.device(),
                ", the scale on ", scale_.device());
    by_dtype[g.scalar_type()].push_back(g);
  }
  // The reciprocal in float64, as Python does (float32 division can be inexact).
  const torch::Tensor inv_scale = scale_.to(torch::kDouble).reciprocal().to(torch::kFloat);
  found_inf_ = torch::zeros({}, scale_.options());
  for (auto& [dtype, grads] : by_dtype) {
    at::_amp_foreach_non_finite_check_and_unscale_(grads, found_inf_, inv_scale);
  }
  if (dist != nullptr && dist->world_size() > 1) {
    torch::Tensor flat = found_inf_.view({1});
    dist->all_reduce_sum(flat);  // in place: found_inf_ holds the sum over ranks
  }
  // The one host read per step that decides the skip (Python: found_inf.item()).
  const bool finite = found_inf_.item<float>() == 0.0F;
  if (!finite) ++skipped_;
  return finite;
}

void GradScaler::update() {
  if (!enabled_) return;
  TORCH_CHECK(found_inf_.defined(), "GradScaler::update called before unscale");
  at::_amp_update_scale_(scale_, growth_tracker_, found_inf_, options_.growth_factor,
                         options_.backoff_factor, options_.growth_interval);
  found_inf_ = torch::Tensor();
}

double GradScaler::scale_value() const {
  return enabled_ ? scale_.item<double>() : 1.0;
}

int64_t GradScaler::growth_tracker() const {
  return enabled_ ? growth_tracker_.item<int64_t>() : 0;
}

void GradScaler::save(torch::serialize::OutputArchive& archive) const {
  if (!enabled_) return;
  torch::serialize::OutputArchive state;
  state.write("scale", scale_, /*is_buffer=*/true);
  state.write("growth_tracker", growth_tracker_, /*is_buffer=*/true);
  archive.write("grad_scaler", state);
}

void GradScaler::load(torch::serialize::InputArchive& archive) {
  if (!enabled_) return;
  if (!try_load(archive)) {
    throw std::runtime_error(
        "the checkpoint holds no loss-scaler state (it was not trained with --amp fp16)");
  }
}

bool GradScaler::try_load(torch::serialize::InputArchive& archive) {
  if (!enabled_) return false;
  torch::serialize::InputArchive state;
  if (!archive.try_read("grad_scaler", state)) return false;
  torch::Tensor scale, tracker;
  state.read("scale", scale, /*is_buffer=*/true);
  state.read("growth_tracker", tracker, /*is_buffer=*/true);
  TORCH_CHECK(scale.numel() == 1 && tracker.numel() == 1, "the checkpoint's loss-scaler state has ",
              scale.numel(), " and ", tracker.numel(), " elements, expected one each");
  const double value = scale.item<double>();
  if (!std::isfinite(value) || value <= 0) {
    throw std::runtime_error(fmt::format("the checkpoint's loss scale is {}: not usable", value));
  }
  scale_.copy_(scale.reshape({}));
  growth_tracker_.copy_(tracker.reshape({}));
  return true;
}

}  // namespace cifar
