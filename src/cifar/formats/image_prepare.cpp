// image_prepare.cpp: decoded images made model input: resized as
// torchvision's Resize(antialias=True), centre-cropped as its CenterCrop
// (core/image_prep.h), normalised (see image.h).

#include "cifar/core/pixel_normalizer.h"
#include "cifar/formats/image.h"

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

// resized_float rounded to uint8, (3, height, width) contiguous (interpolate
// may answer in channels-last layout: it does for a 1x1 input).
torch::Tensor resized_uint8(const torch::Tensor& rgb, int64_t height, int64_t width,
                            const char* caller) {
  if (rgb.dim() == 3 && rgb.size(0) == 3 && rgb.size(1) == height && rgb.size(2) == width &&
      rgb.scalar_type() == torch::kUInt8) {
    return rgb.contiguous();
  }
  return resized_float(rgb, height, width, caller)
      .round_()
      .clamp_(0, 255)
      .to(torch::kUInt8)
      .squeeze(0)
      .contiguous();
}

}  // namespace

torch::Tensor resize_image(const torch::Tensor& rgb, int64_t side) {
  return resized_uint8(rgb, side, side, "resize_image");
}

torch::Tensor prepare_image(const torch::Tensor& rgb, int64_t side, const ImagePrep& prep) {
  TORCH_CHECK(rgb.dim() == 3, "prepare_image needs (3, H, W) uint8, got ", rgb.sizes());
  const PrepGeometry g = prep.geometry(rgb.size(1), rgb.size(2), side);
  const auto resized =
      resized_uint8(rgb, g.height, g.width, "prepare_image");                  // (3, height, width)
  return resized.narrow(1, g.top, side).narrow(2, g.left, side).contiguous();  // (3, side, side)
}

torch::Tensor image_to_input(const torch::Tensor& rgb, const Normalization& norm, int64_t side,
                             const ImagePrep& prep) {
  // The image as an image folder stores it (prepare_image: rounded to uint8,
  // as torchvision's Resize gives a uint8 tensor), so that cifar-predict on
  // a file and cifar-eval on its folder see the same input.
  const auto x =
      prepare_image(rgb, side, prep).to(torch::kFloat).unsqueeze(0);  // (1, 3, side, side)
  // (3, side, side), contiguous as resize_image's
  return PixelNormalizer(norm, torch::kCPU)(x).squeeze(0).contiguous();
}

}  // namespace cifar
