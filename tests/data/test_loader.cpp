// test_loader.cpp: epoch plans, batches, and whole-batch crop and flip.
#include <catch2/catch.hpp>

#include "cifar/data/cifar10.h"
#include "cifar/data/loader.h"
#include "cifar/data/shard.h"

using namespace cifar;

namespace {
ImageSplit random_split(int64_t n) {
  ImageSplit d;
  d.images = torch::randint(0, 256, {n, 3, 32, 32}, torch::kUInt8);
  d.labels = torch::randint(0, 10, {n}, torch::kInt64);
  d.class_names = default_class_names();
  return d;
}

// The obvious per-sample reference for crop_and_flip.
torch::Tensor reference_crop_and_flip(const torch::Tensor& x, const torch::Tensor& offsets,
                                      const torch::Tensor& flips) {
  auto padded = torch::constant_pad_nd(x, {4, 4, 4, 4}, 0);
  std::vector<torch::Tensor> out;
  for (int64_t i = 0; i < x.size(0); ++i) {
    const int64_t oy = offsets[i][0].item<int64_t>();
    const int64_t ox = offsets[i][1].item<int64_t>();
    auto crop = padded[i].slice(1, oy, oy + 32).slice(2, ox, ox + 32);
    if (flips[i].item<bool>()) crop = crop.flip({2});
    out.push_back(crop);
  }
  return torch::stack(out);
}
}  // namespace

TEST_CASE("crop_and_flip equals the per-sample reference", "[loader]") {
  torch::manual_seed(1);
  const auto x = torch::randint(0, 256, {16, 3, 32, 32}, torch::kUInt8);
  const auto offsets = torch::randint(0, 9, {16, 2}, torch::kInt64);
  const auto flips = torch::randint(0, 2, {16}, torch::kInt64).to(torch::kBool);
  CHECK(torch::equal(crop_and_flip(x, offsets, flips), reference_crop_and_flip(x, offsets, flips)));
  // Offset (4, 4) without a flip is the identity.
  const auto centre = torch::full({16, 2}, 4, torch::kInt64);
  CHECK(torch::equal(crop_and_flip(x, centre, torch::zeros({16}, torch::kBool)), x));
}

TEST_CASE("epoch plans are reproducible and differ between epochs", "[loader]") {
  const DeviceDataset data(random_split(100), torch::kCPU, Normalization{});
  const auto a = data.plan_epoch(true, true, 7, 1);
  const auto b = data.plan_epoch(true, true, 7, 1);
  const auto c = data.plan_epoch(true, true, 7, 2);
  CHECK(torch::equal(a.order, b.order));
  CHECK(torch::equal(a.offsets, b.offsets));
  CHECK_FALSE(torch::equal(a.order, c.order));
  CHECK(torch::equal(std::get<0>(a.order.sort()), torch::arange(100)));  // a permutation
  const auto plain = data.plan_epoch(false, false, 7, 1);
  CHECK(torch::equal(plain.order, torch::arange(100)));
  CHECK_FALSE(plain.offsets.defined());
}

TEST_CASE("batches are gathered by index and normalised", "[loader]") {
  const auto split = random_split(10);
  Normalization norm;
  const DeviceDataset data(split, torch::kCPU, norm);
  const auto plan = data.plan_epoch(true, false, 3, 1);
  const Batch batch = data.batch(plan, 2, 5);
  REQUIRE(batch.images.sizes() == torch::IntArrayRef{5, 3, 32, 32});
  CHECK(batch.images.dtype() == torch::kFloat);
  const auto idx = plan.order.narrow(0, 2, 5);
  CHECK(torch::equal(batch.labels, split.labels.index_select(0, idx)));
  const auto mean = torch::tensor({norm.mean[0], norm.mean[1], norm.mean[2]}).view({1, 3, 1, 1});
  const auto std = torch::tensor({norm.std[0], norm.std[1], norm.std[2]}).view({1, 3, 1, 1});
  const auto expected =
      ((split.images.index_select(0, idx).to(torch::kDouble) / 255.0 - mean) / std)
          .to(torch::kFloat);
  CHECK(torch::allclose(batch.images, expected, 1e-4, 1e-5));
}

TEST_CASE("channels-last batches keep their values", "[loader]") {
  const auto split = random_split(8);
  const DeviceDataset nchw(split, torch::kCPU, Normalization{});
  const DeviceDataset nhwc(split, torch::kCPU, Normalization{}, /*channels_last=*/true);
  const auto plan = nchw.plan_epoch(false, false, 0, 0);
  const auto b = nhwc.batch(plan, 0, 8).images;
  CHECK(b.is_contiguous(torch::MemoryFormat::ChannelsLast));
  CHECK(torch::equal(b, nchw.batch(plan, 0, 8).images));
}

TEST_CASE("an epoch's shape: its steps, the last batch dropped when it must be", "[loader]") {
  CHECK(epoch_shape(100, 8, /*drop_last=*/false, /*graphed=*/false).steps == 13);  // 12 x 8 + 4
  CHECK(epoch_shape(100, 8, /*drop_last=*/true, /*graphed=*/false).steps == 12);
  CHECK(epoch_shape(100, 8, /*drop_last=*/false, /*graphed=*/true).steps == 12);
  // A last batch of one image is dropped: batch norm cannot train on it.
  CHECK(epoch_shape(33, 8, /*drop_last=*/false, /*graphed=*/false).steps == 4);
  CHECK(epoch_shape(34, 8, /*drop_last=*/false, /*graphed=*/false).steps == 5);
  // Unless it is the only image there is.
  CHECK(epoch_shape(1, 8, /*drop_last=*/false, /*graphed=*/false).steps == 1);
  CHECK(epoch_shape(7, 1, /*drop_last=*/false, /*graphed=*/false).steps == 7);
}
