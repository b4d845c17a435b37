// test_augment.cpp: augmentation presets, reflect translation, alternating
// flips, and crop_flip's plans pinned to the draws they have always made.
#include <catch2/catch.hpp>

#include <set>
#include <utility>

#include "cifar/data/augment.h"
#include "cifar/data/cifar10.h"
#include "cifar/data/loader.h"

using namespace cifar;
namespace F = torch::nn::functional;

namespace {
ImageSplit random_split(int64_t n, uint64_t seed = 1) {
  torch::manual_seed(seed);
  ImageSplit d;
  d.images = torch::randint(0, 256, {n, 3, 32, 32}, torch::kUInt8);
  d.labels = torch::randint(0, 10, {n}, torch::kInt64);
  d.class_names = default_class_names();
  return d;
}

// Normalisation that keeps pixel values, and a batch's pixels back as uint8.
Normalization identity() {
  Normalization n;
  n.mean = {0, 0, 0};
  n.std = {1.0 / 255, 1.0 / 255, 1.0 / 255};
  return n;
}
torch::Tensor pixels(const torch::Tensor& batch) {
  return batch.round().to(torch::kUInt8);
}

// The obvious per-sample reference: reflection-pad with PyTorch's own
// padding, slice the crop, then flip.
torch::Tensor reference_reflect(const torch::Tensor& x, const torch::Tensor& offsets,
                                const torch::Tensor& flips, int64_t pad) {
  auto padded =
      F::pad(x.to(torch::kFloat), F::PadFuncOptions({pad, pad, pad, pad}).mode(torch::kReflect));
  std::vector<torch::Tensor> out;
  for (int64_t i = 0; i < x.size(0); ++i) {
    const int64_t oy = offsets[i][0].item<int64_t>();
    const int64_t ox = offsets[i][1].item<int64_t>();
    auto crop = padded[i].slice(1, oy, oy + 32).slice(2, ox, ox + 32);
    if (flips.defined() && flips[i].item<bool>()) crop = crop.flip({2});
    out.push_back(crop);
  }
  return torch::stack(out).to(x.dtype());
}

// Each sample's flip in a plan, by sample index rather than position.
torch::Tensor flips_by_sample(const EpochPlan& plan) {
  auto by_sample = torch::empty_like(plan.flips);
  by_sample.index_put_({plan.order}, plan.flips);
  return by_sample;
}
}  // namespace

TEST_CASE("augmentation presets have names and the documented settings", "[augment]") {
  CHECK(augmentation_preset("none") == kNoAugmentation);
  CHECK_FALSE(kNoAugmentation.enabled());
  const Augmentation crop_flip = augmentation_preset("crop_flip");
  CHECK(crop_flip.pad == 4);
  CHECK(crop_flip.pad_mode == PadMode::kZero);
  CHECK(crop_flip.flip == FlipMode::kRandom);
  const Augmentation airbench = augmentation_preset("airbench");
  CHECK(airbench.pad == 2);
  CHECK(airbench.pad_mode == PadMode::kReflect);
  CHECK(airbench.flip == FlipMode::kAlternating);
  for (const char* name : {"none", "crop_flip", "airbench"}) {
    CHECK(to_string(augmentation_preset(name)) == name);
  }
  CHECK(to_string(Augmentation{3, PadMode::kReflect, FlipMode::kRandom}) ==
        "pad 3 reflect, random flip");
  // Names and pads in code (the recipes'), no option: a bug, not a usage error.
  CHECK_THROWS_AS(augmentation_preset("cutout"), std::invalid_argument);
  CHECK_THROWS_AS(validate_augmentation(Augmentation{32, PadMode::kReflect, FlipMode::kNone}),
                  std::invalid_argument);
}

TEST_CASE("crop_flip plans are the draws --augment has always made", "[augment]") {
  // Today's plan_epoch, written out: one generator per (seed, epoch); the
  // order, then the offsets, then the flips.
  const DeviceDataset data(random_split(300), torch::kCPU, Normalization{});
  for (const auto& [seed, epoch] : {std::pair<uint64_t, int64_t>{7, 1}, {7, 2}, {123, 5}}) {
    auto gen = at::detail::createCPUGenerator(seed * 1000003ULL + static_cast<uint64_t>(epoch));
    const auto i64 = torch::TensorOptions().dtype(torch::kInt64);
    const auto order = torch::randperm(300, gen, i64);
    const auto offsets = torch::randint(0, 9, {300, 2}, gen, i64);
    const auto flips = torch::randint(0, 2, {300}, gen, i64).to(torch::kBool);
    for (const EpochPlan& plan : {data.plan_epoch(true, true, seed, epoch),
                                  data.plan_epoch(true, kCropFlip, seed, epoch)}) {
      CHECK(torch::equal(plan.order, order));
      CHECK(torch::equal(plan.offsets, offsets));
      CHECK(torch::equal(plan.flips, flips));
      CHECK(plan.pad == 4);
      CHECK(plan.pad_mode == PadMode::kZero);
    }
  }
  const auto plain = data.plan_epoch(true, kNoAugmentation, 7, 1);
  CHECK(torch::equal(plain.order, data.plan_epoch(true, false, 7, 1).order));
  CHECK_FALSE(plain.offsets.defined());
  CHECK_FALSE(plain.flips.defined());
}

TEST_CASE("crop_flip batches are the zero-padded crops, flipped", "[augment]") {
  const auto split = random_split(64);
  const DeviceDataset data(split, torch::kCPU, identity());
  const auto plan = data.plan_epoch(true, kCropFlip, 3, 1);
  const auto batch = pixels(data.batch(plan, 10, 40).images);
  const auto x = split.images.index_select(0, plan.order.narrow(0, 10, 40));
  const auto offsets = plan.offsets.narrow(0, 10, 40);
  const auto flips = plan.flips.narrow(0, 10, 40);
  auto padded = torch::constant_pad_nd(x, {4, 4, 4, 4}, 0);
  for (int64_t i = 0; i < 40; ++i) {
    const int64_t oy = offsets[i][0].item<int64_t>(), ox = offsets[i][1].item<int64_t>();
    auto crop = padded[i].slice(1, oy, oy + 32).slice(2, ox, ox + 32);
    if (flips[i].item<bool>()) crop = crop.flip({2});
    CHECK(torch::equal(batch[i], crop));
  }
}

TEST_CASE("reflect translation: crops of the reflection-padded image", "[augment]") {
  torch::manual_seed(2);
  const auto x = torch::randint(0, 256, {64, 3, 32, 32}, torch::kUInt8);
  const auto none = torch::zeros({64}, torch::kBool);
  // Offset (0, 0) is the top-left corner of the padded image, whose border
  // is the reflection: row -1 is row 1, row -2 is row 2 (the edge is not repeated).
  const auto corner =
      translate_and_flip(x, torch::zeros({64, 2}, torch::kInt64), none, 2, PadMode::kReflect);
  const auto padded =
      F::pad(x.to(torch::kFloat), F::PadFuncOptions({2, 2, 2, 2}).mode(torch::kReflect));
  CHECK(torch::equal(corner.to(torch::kFloat), padded.slice(2, 0, 32).slice(3, 0, 32)));
  auto pixel = [](const torch::Tensor& t, int64_t row, int64_t col) {
    return t.select(2, row).select(2, col);  // (B, C)
  };
  CHECK(torch::equal(pixel(corner, 0, 0), pixel(x, 2, 2)));  // (-2, -2) -> (2, 2)
  CHECK(torch::equal(pixel(corner, 1, 0), pixel(x, 1, 2)));  // (-1, -2) -> (1, 2)
  CHECK(torch::equal(pixel(corner, 0, 5), pixel(x, 2, 3)));  // (-2, 3) -> (2, 3)
  CHECK(torch::equal(pixel(corner, 2, 2), pixel(x, 0, 0)));  // the image's own corner
  // The centre (2, 2) is the image itself; every offset in 0..4, flipped or
  // not, is the reference's crop.
  CHECK(torch::equal(
      translate_and_flip(x, torch::full({64, 2}, 2, torch::kInt64), none, 2, PadMode::kReflect),
      x));
  const auto offsets = torch::randint(0, 5, {64, 2}, torch::kInt64);
  const auto flips = torch::randint(0, 2, {64}, torch::kInt64).to(torch::kBool);
  CHECK(torch::equal(translate_and_flip(x, offsets, flips, 2, PadMode::kReflect),
                     reference_reflect(x, offsets, flips, 2)));
  // No offsets: flips only; no flips: translation only.
  CHECK(torch::equal(translate_and_flip(x, {}, flips, 2, PadMode::kReflect),
                     torch::where(flips.view({64, 1, 1, 1}), x.flip({3}), x)));
  CHECK(torch::equal(translate_and_flip(x, offsets, {}, 2, PadMode::kReflect),
                     reference_reflect(x, offsets, {}, 2)));
}

TEST_CASE("airbench batches: 2-pixel reflect crops, every offset drawn", "[augment]") {
  const auto split = random_split(2000);
  const DeviceDataset data(split, torch::kCPU, identity());
  const auto plan = data.plan_epoch(true, kAirbenchAugmentation, 5, 1);
  REQUIRE(plan.offsets.defined());
  CHECK(plan.offsets.min().item<int64_t>() == 0);
  CHECK(plan.offsets.max().item<int64_t>() == 4);  // within 2 pixels of the original
  std::set<std::pair<int64_t, int64_t>> seen;
  for (int64_t i = 0; i < 2000; ++i) {
    seen.emplace(plan.offsets[i][0].item<int64_t>(), plan.offsets[i][1].item<int64_t>());
  }
  CHECK(seen.size() == 25);
  const auto batch = pixels(data.batch(plan, 100, 300).images);
  const auto x = split.images.index_select(0, plan.order.narrow(0, 100, 300));
  CHECK(torch::equal(batch, reference_reflect(x, plan.offsets.narrow(0, 100, 300),
                                              plan.flips.narrow(0, 100, 300), 2)));
}

TEST_CASE("alternating flip: two consecutive epochs show every image both ways", "[augment]") {
  // Random images: each one's left and right halves differ, so a batch image
  // is either the image or its mirror, and which one can be seen.
  const int64_t n = 500;
  const auto split = random_split(n);
  REQUIRE_FALSE((split.images == split.images.flip({3})).flatten(1).all(1).any().item<bool>());
  const DeviceDataset data(split, torch::kCPU, identity());
  const Augmentation flip_only{0, PadMode::kZero, FlipMode::kAlternating};
  // Whether each image (by sample index) was seen mirrored in `epoch`.
  auto mirrored = [&](const Augmentation& aug, int64_t epoch) {
    const auto plan = data.plan_epoch(true, aug, 11, epoch);
    const auto batch = pixels(data.batch(plan, 0, n).images);
    const auto x = split.images.index_select(0, plan.order);
    const auto as_is = (batch == x).flatten(1).all(1);
    const auto flipped = (batch == x.flip({3})).flatten(1).all(1);
    REQUIRE(torch::logical_xor(as_is, flipped).all().item<bool>());  // one or the other
    auto by_sample = torch::empty_like(flipped);
    by_sample.index_put_({plan.order}, flipped);
    return by_sample;
  };
  const auto e1 = mirrored(flip_only, 1), e2 = mirrored(flip_only, 2);
  const auto e3 = mirrored(flip_only, 3), e4 = mirrored(flip_only, 4);
  CHECK(torch::equal(e2, e1.logical_not()));
  CHECK(torch::equal(e3, e2.logical_not()));
  CHECK(torch::equal(e4, e3.logical_not()));
  // Each image's own flip is drawn once for the run: about half of them.
  CHECK(torch::equal(e1, e3));
  const double share = e1.to(torch::kDouble).mean().item<double>();
  CHECK(share > 0.4);
  CHECK(share < 0.6);
  // From the seed alone, and the same draws with the airbench preset.
  CHECK(torch::equal(e1, run_flips(11, n)));
  CHECK_FALSE(torch::equal(run_flips(11, n), run_flips(12, n)));
  for (int64_t epoch = 1; epoch <= 4; ++epoch) {
    const auto plan = data.plan_epoch(true, kAirbenchAugmentation, 11, epoch);
    CHECK(torch::equal(flips_by_sample(plan), epoch % 2 == 1 ? e1 : e2));
  }
}

TEST_CASE("augmented plans repeat for the same (seed, epoch) only", "[augment]") {
  const DeviceDataset data(random_split(200), torch::kCPU, Normalization{});
  for (const Augmentation& aug : {kCropFlip, kAirbenchAugmentation}) {
    const auto a = data.plan_epoch(true, aug, 7, 3);
    const auto b = data.plan_epoch(true, aug, 7, 3);
    const auto c = data.plan_epoch(true, aug, 7, 4);
    const auto d = data.plan_epoch(true, aug, 8, 3);
    CHECK(torch::equal(a.order, b.order));
    CHECK(torch::equal(a.offsets, b.offsets));
    CHECK(torch::equal(a.flips, b.flips));
    CHECK_FALSE(torch::equal(a.order, c.order));
    CHECK_FALSE(torch::equal(a.offsets, c.offsets));
    CHECK_FALSE(torch::equal(a.order, d.order));
    CHECK_FALSE(torch::equal(a.offsets, d.offsets));
    CHECK(torch::equal(data.batch(a, 0, 50).images, data.batch(b, 0, 50).images));
  }
}
