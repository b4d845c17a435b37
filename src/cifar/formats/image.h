// image.h: one's own images (PNG, JPEG) as model input.
//
// PNG is decoded with libpng's simplified API and JPEG with libjpeg-turbo,
// whose warnings (corrupt or truncated data) count as errors here. The pixel
// count in the file's header is checked against a cap before anything is
// decoded. Images become RGB (grey expanded, alpha composited on black),
// are resized to 32x32 with antialiasing (bilinear, as torchvision's
// Resize(antialias=True); a 32x32 image is left as it is) and normalised as
// the model was trained. Each failure is one std::runtime_error naming the
// file and the problem.
#pragma once

#include <torch/torch.h>

#include <cstdint>
#include <filesystem>
#include <span>
#include <string>

#include "cifar/core/types.h"

namespace cifar {

// More pixels than this (about 8000 x 8000) is refused before decoding.
inline constexpr int64_t kMaxImagePixels = 64'000'000;

// Decodes a PNG or JPEG held in memory (recognised by its signature) into
// (3, H, W) uint8 RGB.
torch::Tensor decode_image(std::span<const uint8_t> bytes, const std::string& source,
                           int64_t max_pixels = kMaxImagePixels);
torch::Tensor read_image(const std::filesystem::path& path, int64_t max_pixels = kMaxImagePixels);

// (3, H, W) uint8 -> (3, 32, 32) float, resized and normalised as
// DeviceDataset normalises the training images.
torch::Tensor image_to_input(const torch::Tensor& rgb, const Normalization& norm);

}  // namespace cifar
