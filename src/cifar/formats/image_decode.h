// image_decode.h: the two decoders decode_image (image.h) chooses between,
// and what both check. Internal to formats/: other layers call image.h.
#pragma once

#include <torch/torch.h>

#include <cstdint>
#include <span>
#include <string>

namespace cifar {

// Throws std::runtime_error "image SOURCE: PROBLEM".
[[noreturn]] void fail_image(const std::string& source, const std::string& problem);

// Refuses an image of no pixels or of more than `max_pixels`, before
// anything is allocated for it.
void check_image_pixels(uint64_t width, uint64_t height, int64_t max_pixels,
                        const std::string& source);

// A JPEG's pixels as (3, H, W) uint8 RGB (jpeg_decode.cpp).
torch::Tensor decode_jpeg(std::span<const uint8_t> bytes, const std::string& source,
                          int64_t max_pixels);

}  // namespace cifar
