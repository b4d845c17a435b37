// image.cpp: PNG and JPEG decoding and model input (see image.h).
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

#include "cifar/core/file_io.h"

namespace cifar {
namespace {

[[noreturn]] void fail(const std::string& source, const std::string& problem) {
  throw std::runtime_error(fmt::format("image {}: {}", source, problem));
}

void check_pixels(uint64_t width, uint64_t height, int64_t max_pixels, const std::string& source) {
  if (width == 0 || height == 0) fail(source, "has no pixels");
  if (width * height > static_cast<uint64_t>(max_pixels)) {
    fail(source, fmt::format("is {}x{} pixels, more than the {} allowed; shrink it first", width,
                             height, max_pixels));
  }
}

torch::Tensor decode_png(std::span<const uint8_t> bytes, const std::string& source,
                         int64_t max_pixels) {
  png_image image;
  std::memset(&image, 0, sizeof(image));
  image.version = PNG_IMAGE_VERSION;
  // png_image_free releases what libpng allocated, on every path.
  const auto guard = std::unique_ptr<png_image, void (*)(png_image*)>(&image, png_image_free);
  if (!png_image_begin_read_from_memory(&image, bytes.data(), bytes.size())) {
    fail(source, fmt::format("not a readable PNG ({})", image.message));
  }
  check_pixels(image.width, image.height, max_pixels, source);
  image.format = PNG_FORMAT_RGB;
  auto hwc = torch::empty({image.height, image.width, 3}, torch::kUInt8);  // (H, W, 3)
  // Transparent pixels are composited onto white (README, cifar-predict): with
  // no background libpng blends onto what the buffer held before.
  const png_color white{.red = 255, .green = 255, .blue = 255};
  if (!png_image_finish_read(&image, &white, hwc.data_ptr<uint8_t>(),
                             /*row_stride=*/0, /*colormap=*/nullptr) ||
      (image.warning_or_error & PNG_IMAGE_ERROR) != 0) {
    fail(source, fmt::format("the PNG data is damaged or truncated ({})", image.message));
  }
  return hwc.permute({2, 0, 1}).contiguous();  // (3, H, W)
}

// libjpeg reports errors through a callback that must not return: it jumps
// back to decode_jpeg, which turns the message into an exception.
struct JpegState {
  jpeg_decompress_struct info{};
  jpeg_error_mgr errors{};
  std::jmp_buf jump{};
  char message[JMSG_LENGTH_MAX] = {};
  bool created = false;
  torch::Tensor hwc;  // (H, W, 3) uint8
};

void jpeg_fail(j_common_ptr info) {
  auto* state = reinterpret_cast<JpegState*>(info->client_data);
  (*info->err->format_message)(info, state->message);
  std::longjmp(state->jump, 1);
}

void jpeg_message(j_common_ptr info, int level) {
  if (level < 0) jpeg_fail(info);  // a warning (corrupt data, premature end) is an error here
}

torch::Tensor decode_jpeg(std::span<const uint8_t> bytes, const std::string& source,
                          int64_t max_pixels) {
  auto state = std::make_unique<JpegState>();
  state->info.err = jpeg_std_error(&state->errors);
  state->errors.error_exit = jpeg_fail;
  state->errors.emit_message = jpeg_message;
  state->info.client_data = state.get();
  if (setjmp(state->jump) != 0) {
    if (state->created) jpeg_destroy_decompress(&state->info);
    fail(source, fmt::format("the JPEG data is damaged or truncated ({})", state->message));
  }
  jpeg_create_decompress(&state->info);
  state->created = true;
  jpeg_mem_src(&state->info, bytes.data(), static_cast<unsigned long>(bytes.size()));
  jpeg_read_header(&state->info, TRUE);
  const uint64_t pixels = static_cast<uint64_t>(state->info.image_width) * state->info.image_height;
  if (pixels == 0 || pixels > static_cast<uint64_t>(max_pixels)) {
    const uint64_t w = state->info.image_width, h = state->info.image_height;
    jpeg_destroy_decompress(&state->info);
    state->created = false;
    check_pixels(w, h, max_pixels, source);
  }
  // Grey and YCbCr become RGB in libjpeg; CMYK and YCCK (print files) come
  // out as CMYK and are converted below.
  const bool cmyk =
      state->info.jpeg_color_space == JCS_CMYK || state->info.jpeg_color_space == JCS_YCCK;
  state->info.out_color_space = cmyk ? JCS_CMYK : JCS_RGB;
  const int64_t channels = cmyk ? 4 : 3;
  jpeg_start_decompress(&state->info);
  const auto width = state->info.output_width, height = state->info.output_height;
  state->hwc = torch::empty({height, width, channels}, torch::kUInt8);
  auto* base = state->hwc.data_ptr<uint8_t>();
  while (state->info.output_scanline < height) {
    JSAMPROW row = base + static_cast<size_t>(state->info.output_scanline) * width *
                              static_cast<size_t>(channels);
    jpeg_read_scanlines(&state->info, &row, 1);
  }
  const bool inverted = state->info.saw_Adobe_marker != 0;
  jpeg_finish_decompress(&state->info);
  jpeg_destroy_decompress(&state->info);
  state->created = false;
  if (cmyk) {
    // (H, W, 4) -> (H, W, 3): R = (1 - C)(1 - K), and so on. Adobe's files
    // (nearly all CMYK JPEGs) store the values inverted, 255 - C.
    auto ink = state->hwc.to(torch::kInt32);
    if (!inverted) ink = 255 - ink;
    const auto k = ink.narrow(2, 3, 1);
    state->hwc = (ink.narrow(2, 0, 3) * k + 127).div(255, "floor").to(torch::kUInt8);
  }
  return state->hwc.permute({2, 0, 1}).contiguous();  // (3, H, W)
}

}  // namespace

torch::Tensor decode_image(std::span<const uint8_t> bytes, const std::string& source,
                           int64_t max_pixels) {
  static constexpr uint8_t kPng[8] = {0x89, 'P', 'N', 'G', '\r', '\n', 0x1a, '\n'};
  if (bytes.empty()) fail(source, "the file is empty");
  if (bytes.size() >= 8 && std::memcmp(bytes.data(), kPng, 8) == 0) {
    return decode_png(bytes, source, max_pixels);
  }
  if (bytes.size() >= 3 && bytes[0] == 0xff && bytes[1] == 0xd8 && bytes[2] == 0xff) {
    return decode_jpeg(bytes, source, max_pixels);
  }
  fail(source, "not a PNG or JPEG file (unknown signature)");
}

torch::Tensor read_image(const std::filesystem::path& path, int64_t max_pixels) {
  const std::string bytes = read_file(path, uint64_t{1} << 28, "image");
  return decode_image(std::span(reinterpret_cast<const uint8_t*>(bytes.data()), bytes.size()),
                      path.string(), max_pixels);
}

torch::Tensor image_to_input(const torch::Tensor& rgb, const Normalization& norm) {
  TORCH_CHECK(rgb.dim() == 3 && rgb.size(0) == 3 && rgb.scalar_type() == torch::kUInt8,
              "image_to_input needs (3, H, W) uint8, got ", rgb.sizes());
  auto x = rgb.to(torch::kFloat).unsqueeze(0);  // (1, 3, H, W), values 0..255
  if (rgb.size(1) != kImageSide || rgb.size(2) != kImageSide) {
    namespace F = torch::nn::functional;
    x = F::interpolate(x, F::InterpolateFuncOptions()
                              .size(std::vector<int64_t>{kImageSide, kImageSide})
                              .mode(torch::kBilinear)
                              .align_corners(false)
                              .antialias(true));
  }
  // The same arithmetic as DeviceDataset: (x - 255 mean) * (1 / (255 std)).
  auto mean = torch::tensor({norm.mean[0], norm.mean[1], norm.mean[2]}, torch::kFloat);
  auto std = torch::tensor({norm.std[0], norm.std[1], norm.std[2]}, torch::kFloat);
  const auto shift = (mean * 255.0).view({1, 3, 1, 1});
  const auto scale = (1.0 / (std * 255.0)).view({1, 3, 1, 1});
  return x.sub_(shift).mul_(scale).squeeze(0);  // (3, 32, 32)
}

}  // namespace cifar
