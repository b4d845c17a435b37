// image.h: one's own images (PNG, JPEG) as model input.
//
// PNG is decoded with libpng and JPEG with libjpeg-turbo, whose warnings
// (corrupt or truncated data) count as errors here. The pixel count in the
// file's header is checked against a cap before anything is decoded. Images
// mean what they show: every PNG encoding of the same 8-bit pixels gives the
// same bytes (palette, grey and low bit depths expanded, 16 bits scaled to
// the nearest 8-bit value, Adam7 de-interlaced; gAMA, cHRM, sRGB and iCCP
// ignored, the values taken as sRGB as torchvision and PIL take them), and
// transparency is composited onto white on the stored values (bKGD ignored).
// A JPEG gives libjpeg's own decode (grey as R = G = B); its Exif orientation
// is ignored, as torchvision's decode_jpeg ignores it by default. Images
// are prepared at the model's side x side as it was trained (resized with
// antialiasing, bilinear, as torchvision's Resize(antialias=True), whole or
// with the centre cut: core/image_prep.h) and normalised so. Each failure is one std::runtime_error
// naming the file and the problem.
#pragma once

#include <torch/torch.h>

#include <cstdint>
#include <filesystem>
#include <optional>
#include <span>
#include <string>
#include <utility>

#include "cifar/core/image_prep.h"
#include "cifar/core/types.h"

namespace cifar {

// More pixels than this (about 8000 x 8000) is refused before decoding.
inline constexpr int64_t kMaxImagePixels = 64'000'000;

// Decodes a PNG or JPEG held in memory (recognised by its signature) into
// (3, H, W) uint8 RGB.
torch::Tensor decode_image(std::span<const uint8_t> bytes, const std::string& source,
                           int64_t max_pixels = kMaxImagePixels);
torch::Tensor read_image(const std::filesystem::path& path, int64_t max_pixels = kMaxImagePixels);

// (3, H, W) uint8 -> (3, side, side) uint8: the whole image resized
// (bilinear with antialiasing, as torchvision's Resize(antialias=True); an
// image of that size is returned as it is), then rounded to the nearest
// integer. prepare_image's squash at 1.0.
torch::Tensor resize_image(const torch::Tensor& rgb, int64_t side);

// The (height, width) a PNG's or JPEG's header gives, from the file's
// first bytes (the PNG's IHDR; the JPEG's first frame header, SOF0-15),
// without decoding; none when they hold no such header.
std::optional<std::pair<int64_t, int64_t>> image_dimensions(std::span<const uint8_t> front);

// (3, H, W) uint8 -> (3, h, w) uint8: the shorter side resized to
// max_short when it is longer (the longer side to int(max_short * long /
// short), as a centre preparation sizes it), as resize_image resizes and
// rounds; an image no larger is returned as it is. The copy of a photo an
// image folder keeps (core/image_prep.h: kept_side).
torch::Tensor reduce_image(const torch::Tensor& rgb, int64_t max_short);

// (3, H, W) uint8 -> (3, side, side) uint8 as `prep` says (core/image_prep.h):
// resized as resize_image resizes, to prep.scale_size(side) square (squash)
// or with the shorter side at it (center: torchvision's Resize(int)), rounded,
// then the centre side x side (torchvision's CenterCrop): how image folders
// are stored for evaluation, and what cifar-predict gives the model.
torch::Tensor prepare_image(const torch::Tensor& rgb, int64_t side, const ImagePrep& prep);

// What the decoding and resizing above depend on, as text: the PNG and JPEG
// libraries' versions (compiled against and, for libpng, loaded) and this
// code's own revision, raised when its output changes. A cache of decoded
// images keys on it.
std::string image_decoding_version();

// (3, H, W) uint8 -> (3, side, side) float: prepare_image's uint8 image (what
// an image folder stores), normalised as the training images are
// (core/pixel_normalizer.h).
torch::Tensor image_to_input(const torch::Tensor& rgb, const Normalization& norm, int64_t side,
                             const ImagePrep& prep = kWholeImage);

// (3, S, S) uint8 already prepared (an image folder's stored image) ->
// (3, S, S) float, normalised as image_to_input normalises.
torch::Tensor prepared_to_input(const torch::Tensor& prepared, const Normalization& norm);

}  // namespace cifar
