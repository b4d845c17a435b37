// loader.cpp: epoch plans, and batches augmented whole on the device.
#include "cifar/data/loader.h"

#include "cifar/data/crops.h"

namespace cifar {

namespace {
// Host-to-device copies go through pinned memory and do not block the host;
// on the CPU this is a no-op.
torch::Tensor to_device(const torch::Tensor& t, const torch::Device& device) {
  if (!device.is_cuda()) return t.to(device);
  return t.pin_memory().to(device, /*non_blocking=*/true);
}
}  // namespace

DeviceDataset::DeviceDataset(const ImageSplit& data, torch::Device device, Normalization norm,
                             bool channels_last)
    : normalize_(norm, device), channels_last_(channels_last) {
  TORCH_CHECK(data.images.defined() && data.images.dim() == 4 && data.images.size(1) == 3,
              "DeviceDataset needs images of shape (N, 3, S, S), got ",
              data.images.defined() ? data.images.sizes() : c10::IntArrayRef{});
  images_ = to_device(data.images, device);
  labels_ = to_device(data.labels, device);
  whole_ = data.whole;
  if (whole_)
    eval_boxes_ =
        to_device(eval_crop_boxes(whole_->sizes, whole_->image_size, whole_->prep), device);
}

EpochPlan DeviceDataset::plan_epoch(bool shuffle, const Augmentation& augmentation, uint64_t seed,
                                    int64_t epoch) const {
  validate_augmentation(augmentation);
  const int64_t n = size();
  auto gen = at::detail::createCPUGenerator(seed * 1000003ULL + static_cast<uint64_t>(epoch));
  const auto i64 = torch::TensorOptions().dtype(torch::kInt64);
  EpochPlan plan;
  plan.pad = augmentation.pad;
  plan.pad_mode = augmentation.pad_mode;
  plan.order = shuffle ? torch::randperm(n, gen, i64) : torch::arange(n, i64);
  if (augmentation.translates() && whole_) {
    plan.boxes =
        random_crop_boxes(whole_->sizes.index_select(0, plan.order), whole_->min_scale, gen);
  } else if (augmentation.translates()) {
    plan.offsets = torch::randint(0, 2 * augmentation.pad + 1, {n, 2}, gen, i64);
  }
  if (augmentation.flip == FlipMode::kRandom) {
    plan.flips = torch::randint(0, 2, {n}, gen, i64).to(torch::kBool);
  } else if (augmentation.flip == FlipMode::kAlternating) {
    // Each image's own flip for the run, mirrored as a whole on even epochs.
    plan.flips = run_flips(seed, n).index_select(0, plan.order);
    if (epoch % 2 == 0) plan.flips = plan.flips.logical_not();
  }
  // One copy per epoch, not per step.
  const auto device = images_.device();
  plan.order = to_device(plan.order, device);
  if (plan.offsets.defined()) plan.offsets = to_device(plan.offsets, device);
  if (plan.flips.defined()) plan.flips = to_device(plan.flips, device);
  if (plan.boxes.defined()) plan.boxes = to_device(plan.boxes, device);
  if (whole_ && !plan.boxes.defined()) plan.boxes = eval_boxes_.index_select(0, plan.order);
  return plan;
}

EpochPlan DeviceDataset::plan_epoch(bool shuffle, bool augment, uint64_t seed,
                                    int64_t epoch) const {
  return plan_epoch(shuffle, augment ? kCropFlip : kNoAugmentation, seed, epoch);
}

torch::Tensor crop_and_flip(const torch::Tensor& x, const torch::Tensor& offsets,
                            const torch::Tensor& flips) {
  return translate_and_flip(x, offsets, flips, kCropFlip.pad, PadMode::kZero);
}

Batch DeviceDataset::batch(const EpochPlan& plan, int64_t start, int64_t count) const {
  auto idx = plan.order.narrow(0, start, count);  // (B)
  auto x = images_.index_select(0, idx);          // (B, 3, S, S) uint8
  auto part = [&](const torch::Tensor& t) {
    return t.defined() ? t.narrow(0, start, count) : torch::Tensor();
  };
  if (plan.boxes.defined()) {  // whole images: cut to the model's side, flipped
    x = crop_resize(x, part(plan.boxes), part(plan.flips),
                    image_size());  // (B, 3, side, side) float
  } else if (plan.offsets.defined() || plan.flips.defined()) {
    x = translate_and_flip(x, part(plan.offsets), part(plan.flips), plan.pad, plan.pad_mode);
  }
  auto images = normalize_(x.to(torch::kFloat));  // (B, 3, side, side) float
  if (channels_last_) images = images.contiguous(torch::MemoryFormat::ChannelsLast);
  return {images, labels_.index_select(0, idx)};
}

}  // namespace cifar
