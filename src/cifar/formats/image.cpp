// image.cpp: PNG decoding, the choice of decoder, and what both check (see
// image.h; JPEG decoding: jpeg_decode.cpp).
#include "cifar/formats/image.h"

// jpeglib.h needs <cstdio> first.
// clang-format off
#include <jpeglib.h>
#include <cstdio>
// clang-format on
#include <fmt/format.h>
#include <png.h>

#include <csetjmp>
#include <cstring>
#include <memory>
#include <stdexcept>
#include <vector>

#include "cifar/core/file_io.h"
#include "cifar/core/names.h"
#include "cifar/formats/image_decode.h"

namespace cifar {

void fail_image(const std::string& source, const std::string& problem) {
  throw std::runtime_error(fmt::format("image {}: {}", source, problem));
}

void check_image_pixels(uint64_t width, uint64_t height, int64_t max_pixels,
                        const std::string& source) {
  if (width == 0 || height == 0) fail_image(source, "has no pixels");
  if (width * height > static_cast<uint64_t>(max_pixels)) {
    fail_image(source, fmt::format("is {}x{} pixels, more than the {} allowed; shrink it first",
                                   width, height, max_pixels));
  }
}

namespace {

// libpng, like libjpeg, reports errors through a callback that must not
// return: png_fail jumps back to decode_png, which throws.
struct PngState {
  std::span<const uint8_t> bytes;
  size_t at = 0;
  png_structp png = nullptr;
  png_infop info = nullptr;
  std::jmp_buf jump{};
  std::string message;
  bool header_read = false;  // failures after the header are damaged image data
  bool pixels_read = false;  // every row decoded: what follows is not read by PIL either
  torch::Tensor hwc;         // (H, W, 3 or 4) uint8
  std::vector<png_bytep> rows;
  ~PngState() { png_destroy_read_struct(&png, &info, nullptr); }
};

void png_fail(png_structp png, png_const_charp message) {
  auto* state = static_cast<PngState*>(png_get_error_ptr(png));
  state->message = message;
  std::longjmp(state->jump, 1);
}

void png_read_bytes(png_structp png, png_bytep out, size_t n) {
  auto* state = static_cast<PngState*>(png_get_io_ptr(png));
  if (n > state->bytes.size() - state->at) png_error(png, "the file ends early");
  std::memcpy(out, state->bytes.data() + state->at, n);
  state->at += n;
}

// (H, W, 4) -> (H, W, 3): straight alpha over white, v a / 255 + 255 (1 - a / 255)
// rounded to the nearest, on the stored (sRGB) values.
torch::Tensor composite_on_white(const torch::Tensor& rgba) {
  auto rgb = torch::empty({rgba.size(0), rgba.size(1), 3}, torch::kUInt8);
  const uint8_t* in = rgba.data_ptr<uint8_t>();
  uint8_t* out = rgb.data_ptr<uint8_t>();
  for (int64_t i = 0, n = rgba.size(0) * rgba.size(1); i < n; ++i, in += 4, out += 3) {
    const unsigned a = in[3];
    for (int c = 0; c < 3; ++c) {
      out[c] = static_cast<uint8_t>((in[c] * a + 255 * (255 - a) + 127) / 255);
    }
  }
  return rgb;
}

// The decoded (H, W, 3 or 4) rows as (3, H, W) RGB, transparency onto white.
torch::Tensor pixels_of(const PngState& state) {
  const auto hwc = state.hwc.size(2) == 4 ? composite_on_white(state.hwc) : state.hwc;
  return hwc.permute({2, 0, 1}).contiguous();
}

// Every encoding of the same 8-bit pixels gives the same bytes: palette,
// grey and low bit depths are expanded, 16 bits scaled to the nearest 8-bit
// value (v * 257 -> v), Adam7 de-interlaced; gAMA, cHRM, sRGB and iCCP are
// ignored (the values are taken as sRGB, as torchvision and PIL take them),
// and so is bKGD (transparency goes onto white).
torch::Tensor decode_png(std::span<const uint8_t> bytes, const std::string& source,
                         int64_t max_pixels) {
  auto state = std::make_unique<PngState>();
  state->bytes = bytes;
  state->png = png_create_read_struct(PNG_LIBPNG_VER_STRING, state.get(), png_fail,
                                      [](png_structp, png_const_charp) {});  // warnings: ignored
  if (state->png == nullptr) fail_image(source, "libpng could not start (out of memory)");
  // Any side PNG allows (2^31 - 1), not libpng's default of 1,000,000: the
  // pixel cap bounds the image, and preparing it is bounded whatever its
  // shape (image_window.h).
  png_set_user_limits(state->png, 0x7fffffff, 0x7fffffff);
  if (setjmp(state->jump) != 0) {
    // A file that ends, or is damaged, after its last pixel (a missing IEND)
    // gives its pixels, as PIL, which stops reading there, gives them.
    if (state->pixels_read) return pixels_of(*state);
    const char* what =
        state->header_read ? "the PNG data is damaged or truncated" : "not a readable PNG";
    fail_image(source, fmt::format("{} ({})", what, state->message));
  }
  state->info = png_create_info_struct(state->png);
  if (state->info == nullptr) png_error(state->png, "out of memory");
  png_set_read_fn(state->png, state.get(), png_read_bytes);
  png_read_info(state->png, state->info);
  state->header_read = true;
  const uint64_t width = png_get_image_width(state->png, state->info);
  const uint64_t height = png_get_image_height(state->png, state->info);
  check_image_pixels(width, height, max_pixels, source);  // before anything is allocated
  png_set_expand(state->png);  // palette -> RGB, grey below 8 bits -> 8, tRNS -> alpha
  png_set_scale_16(state->png);
  png_set_gray_to_rgb(state->png);
  png_set_interlace_handling(state->png);
  png_read_update_info(state->png, state->info);
  const int64_t channels = png_get_channels(state->png, state->info);  // 3, or 4 with alpha
  state->hwc = torch::empty({static_cast<int64_t>(height), static_cast<int64_t>(width), channels},
                            torch::kUInt8);
  state->rows.resize(height);
  for (uint64_t y = 0; y < height; ++y) {
    state->rows[y] = state->hwc.data_ptr<uint8_t>() + y * width * static_cast<uint64_t>(channels);
  }
  png_read_image(state->png, state->rows.data());
  state->pixels_read = true;
  png_read_end(state->png, nullptr);
  return pixels_of(*state);
}

}  // namespace

torch::Tensor decode_image(std::span<const uint8_t> bytes, const std::string& source,
                           int64_t max_pixels) {
  static constexpr uint8_t kPng[8] = {0x89, 'P', 'N', 'G', '\r', '\n', 0x1a, '\n'};
  if (bytes.empty()) fail_image(source, "the file is empty");
  if (bytes.size() >= 8 && std::memcmp(bytes.data(), kPng, 8) == 0) {
    return decode_png(bytes, source, max_pixels);
  }
  if (bytes.size() >= 3 && bytes[0] == 0xff && bytes[1] == 0xd8 && bytes[2] == 0xff) {
    return decode_jpeg(bytes, source, max_pixels);
  }
  fail_image(source, "not a PNG or JPEG file (unknown signature)");
}

std::optional<std::pair<int64_t, int64_t>> image_dimensions(std::span<const uint8_t> front) {
  const auto be16 = [&](size_t at) { return int64_t{front[at]} << 8 | front[at + 1]; };
  const auto be32 = [&](size_t at) { return be16(at) << 16 | be16(at + 2); };
  static constexpr uint8_t kPng[8] = {0x89, 'P', 'N', 'G', '\r', '\n', 0x1a, '\n'};
  if (front.size() >= 24 && std::memcmp(front.data(), kPng, 8) == 0 &&
      std::memcmp(front.data() + 12, "IHDR", 4) == 0) {
    return std::pair{be32(20), be32(16)};
  }
  if (front.size() < 4 || front[0] != 0xff || front[1] != 0xd8) return std::nullopt;
  // JPEG segments: 0xFF, the marker (fill bytes 0xFF before it), then a
  // big-endian length counting itself, except for the markers without one.
  for (size_t at = 2; at + 4 <= front.size();) {
    if (front[at] != 0xff) return std::nullopt;
    const uint8_t marker = front[at + 1];
    if (marker == 0xff) {
      ++at;
      continue;
    }
    if (marker == 0x01 || (marker >= 0xd0 && marker <= 0xd8)) {
      at += 2;
      continue;
    }
    const bool frame = marker >= 0xc0 && marker <= 0xcf && marker != 0xc4 && marker != 0xc8 &&
                       marker != 0xcc;  // SOF0-15, not DHT, JPG, DAC
    if (frame) {
      if (at + 9 > front.size()) return std::nullopt;
      return std::pair{be16(at + 5), be16(at + 7)};
    }
    at += 2 + static_cast<size_t>(be16(at + 2));
  }
  return std::nullopt;
}

torch::Tensor read_image(const std::filesystem::path& path, int64_t max_pixels) {
  const std::string bytes = read_file(path, uint64_t{1} << 28, "image");
  return decode_image(std::span(reinterpret_cast<const uint8_t*>(bytes.data()), bytes.size()),
                      shown_name(path), max_pixels);  // a name with a newline keeps its line
}

std::string image_decoding_version() {
#define CIFAR_TEXT(x) #x
#define CIFAR_VERSION_TEXT(x) CIFAR_TEXT(x)
  return fmt::format("libpng {} (loaded {}), libjpeg-turbo {}, cifar-train decoding revision 4",
                     PNG_LIBPNG_VER_STRING, png_get_libpng_ver(nullptr),
                     CIFAR_VERSION_TEXT(LIBJPEG_TURBO_VERSION));
#undef CIFAR_VERSION_TEXT
#undef CIFAR_TEXT
}

}  // namespace cifar
