// pixel_normalizer.h: 0-255 pixels made model input, the one way both the
// training batches (data/loader.h) and the images to classify
// (formats/image.h's image_to_input) are normalised: per channel,
// (x - 255 mean) * (1 / (255 std)), in float.
#pragma once

#include <torch/torch.h>

#include "cifar/core/types.h"

namespace cifar {

class PixelNormalizer {
 public:
  PixelNormalizer(const Normalization& norm, const torch::Device& device)
      : shift_((channels(norm.mean) * 255.0).view({1, 3, 1, 1}).to(device)),
        scale_((1.0 / (channels(norm.std) * 255.0)).view({1, 3, 1, 1}).to(device)) {}

  // Float pixels (B, 3, H, W) or (3, H, W) in 0-255, normalised in place
  // and returned.
  torch::Tensor operator()(torch::Tensor pixels) const { return pixels.sub_(shift_).mul_(scale_); }

 private:
  static torch::Tensor channels(const std::array<double, 3>& c) {
    return torch::tensor({c[0], c[1], c[2]}, torch::kFloat);
  }

  torch::Tensor shift_;  // (1, 3, 1, 1) float: 255 * mean
  torch::Tensor scale_;  // (1, 3, 1, 1) float: 1 / (255 * std)
};

}  // namespace cifar
