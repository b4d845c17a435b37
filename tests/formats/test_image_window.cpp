// test_image_window.cpp: a window of a resized image computed alone
// (formats/image_window.h) holds what F.interpolate's whole resize holds
// there, and prepare_image takes it only where the whole resize would not
// be bounded by the image and its output (issue 47, class 1).
#include <catch2/catch.hpp>

#include "cifar/formats/image.h"
#include "cifar/formats/image_window.h"

using namespace cifar;

namespace {

torch::Tensor random_image(int64_t h, int64_t w, uint64_t seed) {
  auto gen = at::detail::createCPUGenerator(seed);
  return torch::randint(0, 256, {3, h, w}, gen, torch::kUInt8);
}

// F.interpolate's whole resize (antialiased bilinear), float 0..255.
torch::Tensor whole_resize(const torch::Tensor& rgb, int64_t height, int64_t width) {
  namespace F = torch::nn::functional;
  return F::interpolate(rgb.to(torch::kFloat).unsqueeze(0),
                        F::InterpolateFuncOptions()
                            .size(std::vector<int64_t>{height, width})
                            .mode(torch::kBilinear)
                            .align_corners(false)
                            .antialias(true))
      .squeeze(0);
}

}  // namespace

TEST_CASE("a window of a resized image holds what the whole resize holds there", "[image_window]") {
  struct Case {
    int64_t h, w, height, width;
  };
  // Up- and downsampling on either axis, sizes kept, extreme aspect ratios.
  const Case cases[] = {{40, 60, 36, 54},      {13, 9, 36, 52},       {300, 200, 27, 18},
                        {1, 3000, 36, 108000}, {3000, 1, 108000, 36}, {2, 1500, 36, 27000},
                        {1500, 3, 64, 64},     {1, 5000, 64, 64},     {50, 36, 50, 72},
                        {7, 500, 400, 36}};
  uint64_t seed = 1;
  for (const auto& c : cases) {
    const auto rgb = random_image(c.h, c.w, seed++);
    const auto whole = whole_resize(rgb, c.height, c.width);
    for (const int64_t side : {8, 32}) {
      const int64_t rows = std::min(side, c.height), cols = std::min(side, c.width);
      for (const auto& [top, left] : {std::pair<int64_t, int64_t>{0, 0},
                                      {(c.height - rows) / 2, (c.width - cols) / 2},
                                      {c.height - rows, c.width - cols}}) {
        INFO(c.h << "x" << c.w << " -> " << c.height << "x" << c.width << ", window " << rows << "x"
                 << cols << " at " << top << "," << left);
        const ResizeWindow win{c.height, c.width, top, left, rows, cols};
        const auto got = resized_window(rgb, win);
        const auto want = whole.narrow(1, top, rows).narrow(2, left, cols);
        REQUIRE(got.sizes() == want.sizes());
        // ATen computes the sample centres in float, which at 100,000 px moves
        // its weights by about 1e-4; this code in double.
        CHECK((got - want).abs().max().item<float>() < 0.05F);
      }
    }
  }
}

TEST_CASE("prepare_image bounds its memory by the image and its output, not its shape",
          "[image_window]") {
  // Every aspect ratio up to 4:1 is resized whole, as before.
  for (const int64_t h : {1, 5, 36, 100, 3000}) {
    for (const int64_t w : {h, 2 * h, 4 * h}) {
      for (const int64_t side : {8, 32, 224, 1024}) {
        for (const auto& prep :
             {kWholeImage, kTorchvisionEval, ImagePrep{CropMode::kCenter, 0.25}}) {
          const auto g = prep.geometry(h, w, side);
          INFO(h << "x" << w << " at " << side << " " << to_string(prep));
          CHECK(whole_resize_bounded(h, w, g.height, g.width));
          CHECK(whole_resize_bounded(w, h, g.width, g.height));
        }
      }
    }
  }
  // 1 x 200,000 centre-cropped at 32 px: the whole resize is 36 x 7,200,000.
  const auto g = kTorchvisionEval.geometry(1, 200'000, 32);
  CHECK(g.width == 7'200'000);
  CHECK_FALSE(whole_resize_bounded(1, 200'000, g.height, g.width));
  CHECK_FALSE(whole_resize_bounded(200'000, 1, 64, 64));  // squashed whole at 2 x 32

  // What prepare_image gives there agrees with the whole resize's centre
  // (within a level, once rounded), at a size the whole resize can be made.
  for (const auto& [h, w] : {std::pair<int64_t, int64_t>{1, 20'000}, {20'000, 1}, {2, 10'000}}) {
    INFO(h << "x" << w);
    const auto rgb = random_image(h, w, 7);
    for (const auto& prep : {kTorchvisionEval, kWholeImage}) {
      const auto c = prep.geometry(h, w, 32);
      // The centre crop of all three, and the squashed tall one, are cut alone.
      if (prep == kTorchvisionEval || h > w)
        CHECK_FALSE(whole_resize_bounded(h, w, c.height, c.width));
      const auto want = whole_resize(rgb, c.height, c.width)
                            .narrow(1, c.top, 32)
                            .narrow(2, c.left, 32)
                            .round()
                            .clamp(0, 255);
      const auto got = prepare_image(rgb, 32, prep).to(torch::kFloat);
      CHECK((got - want).abs().max().item<float>() <= 1.0F);
    }
    CHECK(resize_image(rgb, 64).sizes() == torch::IntArrayRef{3, 64, 64});
  }
}
