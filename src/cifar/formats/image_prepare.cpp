// image_prepare.cpp: decoded images made model input: resized as
// torchvision's Resize(antialias=True), centre-cropped as its CenterCrop
// (core/image_prep.h), normalised (see image.h).

#include "cifar/core/pixel_normalizer.h"
#include "cifar/formats/image.h"
#include "cifar/formats/image_window.h"

namespace cifar {

namespace {

// (3, H, W) uint8 -> (1, 3, height, width) float holding values 0..255,
// resized as torchvision's Resize(antialias=True) (an image of that size is
// left as it is).
torch::Tensor resized_float(const torch::Tensor& rgb, int64_t height, int64_t width,
                            const char* caller) {
  TORCH_CHECK(rgb.dim() == 3 && rgb.size(0) == 3 && rgb.scalar_type() == torch::kUInt8, caller,
              " needs (3, H, W) uint8, got ", rgb.sizes());
  TORCH_CHECK(height > 0 && width > 0, caller, " needs a positive size, got ", height, "x", width);
  auto x = rgb.to(torch::kFloat).unsqueeze(0);  // (1, 3, H, W), values 0..255
  if (rgb.size(1) != height || rgb.size(2) != width) {
    namespace F = torch::nn::functional;
    x = F::interpolate(x, F::InterpolateFuncOptions()
                              .size(std::vector<int64_t>{height, width})
                              .mode(torch::kBilinear)
                              .align_corners(false)
                              .antialias(true));
  }
  return x;
}

// The window of rgb resized to height x width (resized_float's values),
// rounded to uint8, (3, rows, cols) contiguous (interpolate may answer in
// channels-last layout: it does for a 1x1 input). The whole image is
// resized when that stays within a few times the image and its output
// (every aspect ratio up to 4:1), else the window alone (image_window.h),
// so that the memory an image needs never follows its shape.
torch::Tensor resized_uint8(const torch::Tensor& rgb, const ResizeWindow& win, const char* caller) {
  TORCH_CHECK(rgb.dim() == 3 && rgb.size(0) == 3 && rgb.scalar_type() == torch::kUInt8, caller,
              " needs (3, H, W) uint8, got ", rgb.sizes());
  const int64_t h = rgb.size(1), w = rgb.size(2);
  if (h == win.height && w == win.width) {
    return rgb.narrow(1, win.top, win.rows).narrow(2, win.left, win.cols).contiguous();
  }
  const auto resized = whole_resize_bounded(h, w, win.height, win.width)
                           ? resized_float(rgb, win.height, win.width, caller)
                                 .squeeze(0)
                                 .narrow(1, win.top, win.rows)
                                 .narrow(2, win.left, win.cols)
                           : resized_window(rgb, win);
  return resized.round().clamp_(0, 255).to(torch::kUInt8).contiguous();
}

}  // namespace

torch::Tensor resize_image(const torch::Tensor& rgb, int64_t side) {
  const ResizeWindow whole{.height = side, .width = side, .rows = side, .cols = side};
  return resized_uint8(rgb, whole, "resize_image");
}

torch::Tensor reduce_image(const torch::Tensor& rgb, int64_t max_short) {
  TORCH_CHECK(rgb.dim() == 3, "reduce_image needs (3, H, W) uint8, got ", rgb.sizes());
  if (std::min(rgb.size(1), rgb.size(2)) <= max_short) return rgb;
  // The centre preparation's sizes at max_short, without its crop.
  const PrepGeometry g =
      ImagePrep{CropMode::kCenter, 1.0}.geometry(rgb.size(1), rgb.size(2), max_short);
  const ResizeWindow whole{.height = g.height, .width = g.width, .rows = g.height, .cols = g.width};
  return resized_uint8(rgb, whole, "reduce_image");
}

torch::Tensor prepare_image(const torch::Tensor& rgb, int64_t side, const ImagePrep& prep) {
  TORCH_CHECK(rgb.dim() == 3, "prepare_image needs (3, H, W) uint8, got ", rgb.sizes());
  const PrepGeometry g = prep.geometry(rgb.size(1), rgb.size(2), side);
  const ResizeWindow centre{.height = g.height,
                            .width = g.width,
                            .top = g.top,
                            .left = g.left,
                            .rows = side,
                            .cols = side};
  return resized_uint8(rgb, centre, "prepare_image");  // (3, side, side)
}

torch::Tensor image_to_input(const torch::Tensor& rgb, const Normalization& norm, int64_t side,
                             const ImagePrep& prep) {
  // The image as an image folder stores it (prepare_image: rounded to uint8,
  // as torchvision's Resize gives a uint8 tensor), so that cifar-predict on
  // a file and cifar-eval on its folder see the same input.
  return prepared_to_input(prepare_image(rgb, side, prep), norm);
}

torch::Tensor prepared_to_input(const torch::Tensor& prepared, const Normalization& norm) {
  const auto x = prepared.to(torch::kFloat).unsqueeze(0);  // (1, 3, side, side)
  // (3, side, side), contiguous as resize_image's
  return PixelNormalizer(norm, torch::kCPU)(x).squeeze(0).contiguous();
}

}  // namespace cifar
