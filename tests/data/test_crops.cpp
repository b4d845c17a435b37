// test_crops.cpp: torchvision's image preparation (prepare_image), random
// resized crops and evaluation crops of whole images (data/crops.h), and
// batches of whole images (loader.h).
#include <catch2/catch.hpp>

#include <cmath>

#include "cifar/data/crops.h"
#include "cifar/data/loader.h"
#include "cifar/formats/image.h"

using namespace cifar;

namespace {
// A smooth (3, h, w) uint8 image: gradients, so that resampling differs little.
torch::Tensor smooth_image(int64_t h, int64_t w) {
  const auto y = torch::linspace(0, 1, h).view({h, 1}).expand({h, w});
  const auto x = torch::linspace(0, 1, w).view({1, w}).expand({h, w});
  return torch::stack({200 * x + 20, 200 * y + 20, 100 * (x + y) + 20}).round().to(torch::kUInt8);
}

double mean_abs_difference(const torch::Tensor& a, const torch::Tensor& b) {
  return (a.to(torch::kDouble) - b.to(torch::kDouble)).abs().mean().item<double>();
}
}  // namespace

TEST_CASE("prepare_image: torchvision's Resize(int) + CenterCrop, and squash", "[crops]") {
  // A 40 x 80 image: its centre 40 x 40 is grey 100, the sides 200.
  auto img = torch::full({3, 40, 80}, 200, torch::kUInt8);
  img.narrow(2, 20, 40).fill_(100);
  // center 1.0 at 32: shorter side 40 -> 32, the longer 80 -> 64, the centre
  // 32 columns of 64 are the original's columns 20..60: all grey 100 inside.
  const auto center = prepare_image(img, 32, ImagePrep{CropMode::kCenter, 1.0});
  REQUIRE(center.sizes() == torch::IntArrayRef({3, 32, 32}));
  CHECK(center.narrow(2, 1, 30).eq(100).all().item<bool>());
  // squash 1.0 is resize_image: the whole image, the sides kept.
  const auto squash = prepare_image(img, 32, kWholeImage);
  CHECK(torch::equal(squash, resize_image(img, 32)));
  CHECK(squash.select(2, 0).eq(200).all().item<bool>());
  // center 0.875 at 32: shorter side to floor(32 / 0.875) = 36, the longer to
  // int(36 * 80 / 40) = 72, then the centre 32 x 32 (corner at 2, 20).
  const auto resized =
      torch::nn::functional::interpolate(img.to(torch::kFloat).unsqueeze(0),
                                         torch::nn::functional::InterpolateFuncOptions()
                                             .size(std::vector<int64_t>{36, 72})
                                             .mode(torch::kBilinear)
                                             .align_corners(false)
                                             .antialias(true))
          .round()
          .squeeze(0);
  CHECK(torch::equal(prepare_image(img, 32, kTorchvisionEval).to(torch::kFloat),
                     resized.narrow(1, 2, 32).narrow(2, 20, 32)));
  // An odd margin rounds half to even, as Python's round: 37 - 32 = 5 -> 2.
  CHECK(ImagePrep{CropMode::kCenter, 32.0 / 37.0}.scale_size(32) == 37);
  // A tall image: the width is the shorter side.
  CHECK(prepare_image(smooth_image(90, 45), 32, kTorchvisionEval).sizes() ==
        torch::IntArrayRef({3, 32, 32}));
}

TEST_CASE("eval_crop_boxes cut from a whole image what prepare_image keeps", "[crops]") {
  for (const auto& [h, w] : {std::pair{60, 90}, std::pair{90, 45}, std::pair{50, 50}}) {
    const auto img = smooth_image(h, w);
    const auto whole = resize_image(img, 64).unsqueeze(0);  // squashed to 2 x 32
    const auto sizes = torch::tensor({int64_t{h}, int64_t{w}}).view({1, 2});
    for (const ImagePrep prep : {kTorchvisionEval, kWholeImage, ImagePrep{CropMode::kCenter, 1}}) {
      const auto boxes = eval_crop_boxes(sizes, 32, prep);
      const auto cut = crop_resize(whole, boxes, torch::Tensor(), 32)[0];
      const auto direct = prepare_image(img, 32, prep);
      INFO(h << "x" << w << " " << to_string(prep));
      CHECK(mean_abs_difference(cut, direct) < 1.5);  // the same region, resampled twice
    }
  }
}

TEST_CASE("crop_resize: a whole box is the image, a flip mirrors it", "[crops]") {
  torch::manual_seed(3);
  const auto x = torch::randint(0, 256, {2, 3, 16, 16}, torch::kUInt8);
  const auto all = torch::tensor({0.f, 0.f, 1.f, 1.f}).repeat({2, 1});
  // grid_sample's coordinates carry float rounding: equal to 1e-3 of a level.
  CHECK(torch::allclose(crop_resize(x, all, torch::Tensor(), 16), x.to(torch::kFloat), 0, 1e-3));
  const auto flips = torch::tensor({true, false});
  const auto flipped = crop_resize(x, all, flips, 16);
  CHECK(torch::allclose(flipped[0], x[0].flip({2}).to(torch::kFloat), 0, 1e-3));
  CHECK(torch::allclose(flipped[1], x[1].to(torch::kFloat), 0, 1e-3));
  // The left half of the image at twice its width: output column 5's centre
  // is at input column (5.5) / 2 - 0.5 = 2.25, so 0.75 of column 2 and 0.25 of 3.
  const auto left =
      crop_resize(x.narrow(0, 0, 1), torch::tensor({{0.f, 0.f, 1.f, 0.5f}}), torch::Tensor(), 16);
  const auto xf = x[0].to(torch::kFloat);
  CHECK(torch::allclose(left[0].select(2, 5), 0.75 * xf.select(2, 2) + 0.25 * xf.select(2, 3), 1e-4,
                        1e-3));
  // A box from the stored 2x image at the model's side: 2 x 2 averages.
  const auto big = x.repeat_interleave(2, 2).repeat_interleave(2, 3);  // (2, 3, 32, 32)
  CHECK(torch::allclose(crop_resize(big, all, torch::Tensor(), 16), x.to(torch::kFloat), 0, 1e-3));
}

TEST_CASE("random_crop_boxes draw as torchvision's RandomResizedCrop", "[crops]") {
  const int64_t n = 4000;
  auto sizes = torch::empty({n, 2}, torch::kInt64);
  sizes.select(1, 0).fill_(300);
  sizes.select(1, 1).fill_(400);
  auto gen = at::detail::createCPUGenerator(11);
  const auto boxes = random_crop_boxes(sizes, 0.08, gen);
  REQUIRE(boxes.sizes() == torch::IntArrayRef({n, 4}));
  const auto top = boxes.select(1, 0), left = boxes.select(1, 1);
  const auto h = boxes.select(1, 2), w = boxes.select(1, 3);
  CHECK(((top >= 0) & (left >= 0) & (top + h <= 1 + 1e-6) & (left + w <= 1 + 1e-6))
            .all()
            .item<bool>());
  // Area share in [0.08, 1] (up to the rounding to whole pixels), aspect
  // ratio of the crop in pixels in [3/4, 4/3] (likewise).
  const auto area = h * w;
  CHECK(area.min().item<double>() > 0.07);
  CHECK(area.max().item<double>() <= 1.0 + 1e-6);
  const auto ratio = (w * 400) / (h * 300);
  CHECK(ratio.min().item<double>() > 0.74);
  CHECK(ratio.max().item<double>() < 1.35);
  // The mean share: torchvision's get_params, run in Python 100,000 times on
  // a 300 x 400 image, averages 0.432 (less than (0.08 + 1) / 2, as large
  // crops of a ratio that does not fit are drawn again).
  CHECK(area.mean().item<double>() == Approx(0.432).margin(0.015));
  // The same generator seed, the same boxes; min_scale 1 on a square image
  // of the right ratio: the whole image (or almost).
  auto again = at::detail::createCPUGenerator(11);
  CHECK(torch::equal(random_crop_boxes(sizes, 0.08, again), boxes));
  auto square = torch::full({8, 2}, 100, torch::kInt64);
  auto g = at::detail::createCPUGenerator(1);
  const auto full = random_crop_boxes(square, 1.0, g);
  CHECK(full.narrow(1, 2, 2).min().item<double>() > 0.85);
  // A very wide image never fits ten tries at ratio 4/3 and scale 1: the
  // fallback, the centre crop at the clamped ratio.
  auto wide = torch::tensor({int64_t{10}, int64_t{100}}).view({1, 2});
  auto g2 = at::detail::createCPUGenerator(2);
  const auto fallback = random_crop_boxes(wide, 1.0, g2)[0];
  CHECK(fallback[2].item<float>() == Approx(1.0));
  CHECK(fallback[3].item<float>() == Approx(0.13));  // round(10 * 4/3) = 13 of 100
  CHECK(fallback[1].item<float>() == Approx(0.43));  // (100 - 13) // 2
}

TEST_CASE("DeviceDataset cuts whole images to the model's side", "[crops][loader]") {
  torch::manual_seed(5);
  ImageSplit split;
  split.images = torch::randint(0, 256, {6, 3, 32, 32}, torch::kUInt8);
  split.labels = torch::arange(6, torch::kInt64);
  split.whole = WholeImages{
      .sizes = torch::tensor({{40, 60}, {60, 40}, {50, 50}, {30, 90}, {90, 30}, {32, 32}}),
      .image_size = 16,
      .prep = kTorchvisionEval,
      .min_scale = 0.25};
  CHECK(split.image_size() == 16);
  const DeviceDataset data(split, torch::kCPU, Normalization{});
  CHECK(data.image_size() == 16);
  const auto plan = data.plan_epoch(true, kAirbenchAugmentation, 7, 1);
  REQUIRE(plan.boxes.defined());
  CHECK_FALSE(plan.offsets.defined());
  const Batch batch = data.batch(plan, 0, 6);
  CHECK(batch.images.sizes() == torch::IntArrayRef({6, 3, 16, 16}));
  // The same (seed, epoch), the same batch; another epoch, other crops.
  CHECK(torch::equal(data.batch(data.plan_epoch(true, kAirbenchAugmentation, 7, 1), 0, 6).images,
                     batch.images));
  CHECK_FALSE(torch::equal(data.plan_epoch(true, kAirbenchAugmentation, 7, 3).boxes, plan.boxes));
  // Unaugmented: the evaluation's crop, as evaluation_view stores it.
  const auto plain = data.plan_epoch(false, kNoAugmentation, 7, 1);
  const auto view = evaluation_view(split);
  CHECK_FALSE(view.whole);
  CHECK(view.images.sizes() == torch::IntArrayRef({6, 3, 16, 16}));
  const Normalization none{{0, 0, 0}, {1.0 / 255, 1.0 / 255, 1.0 / 255}};
  const DeviceDataset raw(split, torch::kCPU, none);
  CHECK(torch::allclose(raw.batch(raw.plan_epoch(false, kNoAugmentation, 7, 1), 0, 6).images,
                        view.images.to(torch::kFloat), 0, 0.51));
  // take() keeps each image's size with it.
  const auto some = take(split, torch::tensor({4, 1}));
  CHECK(torch::equal(some.whole->sizes, torch::tensor({{90, 30}, {60, 40}})));
}
