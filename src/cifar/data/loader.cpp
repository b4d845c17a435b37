// loader.cpp: epoch plans and whole-batch augmentation on the device.
#include "cifar/data/loader.h"

namespace cifar {

namespace {
constexpr int64_t kPad = 4;

// Host-to-device copies go through pinned memory and do not block the host;
// on the CPU this is a no-op.
torch::Tensor to_device(const torch::Tensor& t, const torch::Device& device) {
  if (!device.is_cuda()) return t.to(device);
  return t.pin_memory().to(device, /*non_blocking=*/true);
}
}  // namespace

DeviceDataset::DeviceDataset(const Cifar10Dataset& data, torch::Device device, Normalization norm,
                             bool channels_last)
    : channels_last_(channels_last) {
  TORCH_CHECK(data.images.defined() && data.images.dim() == 4 && data.images.size(1) == 3,
              "DeviceDataset needs images of shape (N, 3, 32, 32), got ",
              data.images.defined() ? data.images.sizes() : c10::IntArrayRef{});
  images_ = to_device(data.images, device);
  labels_ = to_device(data.labels, device);
  auto mean = torch::tensor({norm.mean[0], norm.mean[1], norm.mean[2]}, torch::kFloat);
  auto std = torch::tensor({norm.std[0], norm.std[1], norm.std[2]}, torch::kFloat);
  shift_ = (mean * 255.0).view({1, 3, 1, 1}).to(device);
  scale_ = (1.0 / (std * 255.0)).view({1, 3, 1, 1}).to(device);
}

EpochPlan DeviceDataset::plan_epoch(bool shuffle, bool augment, uint64_t seed,
                                    int64_t epoch) const {
  const int64_t n = size();
  auto gen = at::detail::createCPUGenerator(seed * 1000003ULL + static_cast<uint64_t>(epoch));
  const auto i64 = torch::TensorOptions().dtype(torch::kInt64);
  EpochPlan plan;
  plan.order = shuffle ? torch::randperm(n, gen, i64) : torch::arange(n, i64);
  if (augment) {
    plan.offsets = torch::randint(0, 2 * kPad + 1, {n, 2}, gen, i64);
    plan.flips = torch::randint(0, 2, {n}, gen, i64).to(torch::kBool);
  }
  // One copy per epoch, not per step.
  const auto device = images_.device();
  plan.order = to_device(plan.order, device);
  if (augment) {
    plan.offsets = to_device(plan.offsets, device);
    plan.flips = to_device(plan.flips, device);
  }
  return plan;
}

torch::Tensor crop_and_flip(const torch::Tensor& x, const torch::Tensor& offsets,
                            const torch::Tensor& flips) {
  const int64_t b = x.size(0);
  const auto opts = torch::TensorOptions().dtype(torch::kInt64).device(x.device());
  const auto base = torch::arange(kImageSide, opts);                     // (32)
  auto padded = torch::constant_pad_nd(x, {kPad, kPad, kPad, kPad}, 0);  // (B, 3, 40, 40)
  auto rows = offsets.select(1, 0).unsqueeze(1) + base;                  // (B, 32)
  auto cols_base = torch::where(flips.unsqueeze(1), (kImageSide - 1) - base, base);  // (B, 32)
  auto cols = offsets.select(1, 1).unsqueeze(1) + cols_base;                         // (B, 32)
  auto n_idx = torch::arange(b, opts).view({b, 1, 1, 1});
  auto c_idx = torch::arange(kChannels, opts).view({1, kChannels, 1, 1});
  return padded.index({n_idx, c_idx, rows.view({b, 1, kImageSide, 1}),
                       cols.view({b, 1, 1, kImageSide})});  // (B, 3, 32, 32)
}

Batch DeviceDataset::batch(const EpochPlan& plan, int64_t start, int64_t count) const {
  auto idx = plan.order.narrow(0, start, count);  // (B)
  auto x = images_.index_select(0, idx);          // (B, 3, 32, 32) uint8
  if (plan.offsets.defined()) {
    x = crop_and_flip(x, plan.offsets.narrow(0, start, count), plan.flips.narrow(0, start, count));
  }
  auto images = x.to(torch::kFloat).sub_(shift_).mul_(scale_);  // (B, 3, 32, 32) float
  if (channels_last_) images = images.contiguous(torch::MemoryFormat::ChannelsLast);
  return {images, labels_.index_select(0, idx)};
}

}  // namespace cifar
