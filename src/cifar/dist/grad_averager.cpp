// grad_averager.cpp: flat buckets, asynchronous all-reduces, the stop flag.
#include "cifar/dist/grad_averager.h"

namespace cifar {

GradientAverager::GradientAverager(Distributed& dist, std::vector<torch::Tensor> params,
                                   GradAveragerOptions options)
    : dist_(dist), params_(std::move(params)) {
  TORCH_CHECK(!params_.empty(), "GradientAverager needs at least one parameter");
  TORCH_CHECK(options.bucket_bytes() > 0, "bucket_bytes must be positive, got ",
              options.bucket_bytes());
  const auto dtype = params_[0].scalar_type();
  const auto device = params_[0].device();
  for (const auto& p : params_) {
    TORCH_CHECK(p.scalar_type() == dtype && p.device() == device,
                "GradientAverager: all parameters must share one dtype and device; got ",
                p.scalar_type(), " on ", p.device(), " beside ", dtype, " on ", device);
    numel_ += p.numel();
  }
  if (dist_.world_size() == 1) return;
  flat_ = torch::zeros({numel_ + 1}, torch::TensorOptions().dtype(dtype).device(device));
  const int64_t per_bucket =
      std::max<int64_t>(1, options.bucket_bytes() / static_cast<int64_t>(flat_.element_size()));
  for (int64_t start = 0; start < numel_ + 1; start += per_bucket) {
    buckets_.push_back(flat_.narrow(0, start, std::min(per_bucket, numel_ + 1 - start)));
  }
}

void GradientAverager::start(bool stop_local) {
  stop_local_ = stop_local;
  if (dist_.world_size() == 1) return;
  TORCH_CHECK(!started_, "GradientAverager::start called twice without wait");
  torch::NoGradGuard no_grad;
  std::vector<torch::Tensor> grads;
  grads.reserve(params_.size() + 1);
  for (const auto& p : params_) {
    const auto& g = p.grad();
    grads.push_back(g.defined() ? g.reshape({-1}) : torch::zeros({p.numel()}, p.options()));
  }
  grads.push_back(torch::full({1}, stop_local ? 1.0 : 0.0, flat_.options()));
  torch::cat_out(flat_, grads);
  pending_.clear();
  for (const auto& bucket : buckets_) pending_.push_back(dist_.all_reduce_sum_async(bucket));
  started_ = true;
}

bool GradientAverager::wait() {
  if (dist_.world_size() == 1) return stop_local_;
  TORCH_CHECK(started_, "GradientAverager::wait called without start");
  started_ = false;
  for (auto& p : pending_) p.wait();
  pending_.clear();
  torch::NoGradGuard no_grad;
  const bool stop = flat_[numel_].item<double>() > 0;  // the one read-back per step
  auto means = flat_.narrow(0, 0, numel_).div_(dist_.world_size());
  int64_t offset = 0;
  for (auto& p : params_) {
    auto slice = means.narrow(0, offset, p.numel()).view(p.sizes());
    if (!p.requires_grad()) {
      // Frozen (on every rank alike): it keeps no gradient, so no optimiser moves it.
    } else if (p.grad().defined()) {
      p.mutable_grad().copy_(slice);
    } else {
      p.mutable_grad() = slice.clone();
    }
    offset += p.numel();
  }
  return stop;
}

}  // namespace cifar
