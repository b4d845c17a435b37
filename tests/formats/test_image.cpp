// Tests of PNG/JPEG decoding and model input; encoders from the same
// libraries make the files.
#include <png.h>
#include <zlib.h>
// clang-format off
#include <cstdio>
#include <jpeglib.h>
// clang-format on

#include <catch2/catch.hpp>

#include "cifar/formats/image.h"

using namespace cifar;

namespace {

std::span<const uint8_t> as_span(const std::string& s) {
  return {reinterpret_cast<const uint8_t*>(s.data()), s.size()};
}

// (H, W, C) uint8 -> PNG bytes (C = 1, 3 or 4).
std::string encode_png(const torch::Tensor& hwc) {
  png_image image{};
  image.version = PNG_IMAGE_VERSION;
  image.width = static_cast<png_uint_32>(hwc.size(1));
  image.height = static_cast<png_uint_32>(hwc.size(0));
  const int64_t c = hwc.size(2);
  image.format = c == 1 ? PNG_FORMAT_GRAY : c == 3 ? PNG_FORMAT_RGB : PNG_FORMAT_RGBA;
  png_alloc_size_t size = 0;
  REQUIRE(png_image_write_to_memory(&image, nullptr, &size, 0, hwc.data_ptr(), 0, nullptr));
  std::string out(size, '\0');
  REQUIRE(png_image_write_to_memory(&image, out.data(), &size, 0, hwc.data_ptr(), 0, nullptr));
  out.resize(size);
  return out;
}

std::string encode_jpeg(const torch::Tensor& hwc) {
  jpeg_compress_struct info{};
  jpeg_error_mgr err{};
  info.err = jpeg_std_error(&err);
  jpeg_create_compress(&info);
  unsigned char* buffer = nullptr;
  unsigned long size = 0;
  jpeg_mem_dest(&info, &buffer, &size);
  info.image_width = static_cast<JDIMENSION>(hwc.size(1));
  info.image_height = static_cast<JDIMENSION>(hwc.size(0));
  info.input_components = 3;
  info.in_color_space = JCS_RGB;
  jpeg_set_defaults(&info);
  jpeg_set_quality(&info, 95, TRUE);
  jpeg_start_compress(&info, TRUE);
  auto* base = hwc.data_ptr<uint8_t>();
  while (info.next_scanline < info.image_height) {
    JSAMPROW row = base + info.next_scanline * info.image_width * 3;
    jpeg_write_scanlines(&info, &row, 1);
  }
  jpeg_finish_compress(&info);
  jpeg_destroy_compress(&info);
  std::string out(reinterpret_cast<char*>(buffer), size);
  free(buffer);
  return out;
}

torch::Tensor random_hwc(int64_t h, int64_t w, int64_t c) {
  return torch::randint(0, 256, {h, w, c}, torch::kUInt8);
}

}  // namespace

TEST_CASE("PNG decodes to exact RGB, grey and alpha included", "[image]") {
  const auto rgb = random_hwc(20, 30, 3);
  const auto img = decode_image(as_span(encode_png(rgb)), "a.png");
  CHECK(img.sizes() == c10::IntArrayRef({3, 20, 30}));
  CHECK(torch::equal(img, rgb.permute({2, 0, 1})));
  const auto grey = random_hwc(8, 8, 1);
  CHECK(torch::equal(decode_image(as_span(encode_png(grey)), "g.png"),
                     grey.permute({2, 0, 1}).expand({3, 8, 8})));
  auto rgba = random_hwc(8, 8, 4);
  rgba.select(2, 3).fill_(255);  // opaque: the colours stay as they are
  CHECK(torch::equal(decode_image(as_span(encode_png(rgba)), "a.png"),
                     rgba.narrow(2, 0, 3).permute({2, 0, 1})));
}

TEST_CASE("JPEG decodes to RGB close to what was encoded", "[image]") {
  auto smooth = torch::arange(64, torch::kFloat).view({1, 64, 1}) * 2 + torch::zeros({48, 64, 3});
  const auto hwc = smooth.to(torch::kUInt8).contiguous();
  const auto img = decode_image(as_span(encode_jpeg(hwc)), "a.jpg");
  CHECK(img.sizes() == c10::IntArrayRef({3, 48, 64}));
  const auto diff = (img.to(torch::kFloat) - hwc.permute({2, 0, 1}).to(torch::kFloat)).abs();
  CHECK(diff.mean().item<double>() < 2.0);
}

TEST_CASE("bad image files get one clear error each", "[image]") {
  const auto refuse = [](const std::string& bytes, const std::string& words,
                         int64_t cap = kMaxImagePixels) {
    CAPTURE(words);
    REQUIRE_THROWS_WITH(decode_image(as_span(bytes), "bad.img", cap),
                        Catch::Contains("bad.img") && Catch::Contains(words));
  };
  refuse("", "empty");
  refuse("GIF89a....", "not a PNG or JPEG");
  const std::string png = encode_png(random_hwc(64, 64, 3));
  refuse(png.substr(0, png.size() / 2), "PNG");
  const std::string jpeg = encode_jpeg(random_hwc(64, 64, 3));
  refuse(jpeg.substr(0, jpeg.size() / 2), "damaged or truncated");
  refuse(png, "more than the 1000 allowed", 1000);
  refuse(jpeg, "more than the 1000 allowed", 1000);
  // A PNG whose header claims 100000 x 100000 pixels (valid CRC) is refused
  // before any decoding.
  std::string huge = png;
  const auto put32 = [&](size_t at, uint32_t v) {
    for (size_t i = 0; i < 4; ++i) huge[at + i] = static_cast<char>(v >> (24 - 8 * i));
  };
  put32(16, 100000);
  put32(20, 100000);
  put32(29, static_cast<uint32_t>(crc32(0, reinterpret_cast<const Bytef*>(huge.data() + 12), 17)));
  refuse(huge, "100000x100000");
}

TEST_CASE("model input: normalised, resized with antialiasing", "[image]") {
  const Normalization norm{{0.5, 0.25, 0.0}, {0.5, 0.25, 1.0}};
  const auto img = torch::full({3, 32, 32}, 255, torch::kUInt8);
  const auto x = image_to_input(img, norm);
  CHECK(x.sizes() == c10::IntArrayRef({3, 32, 32}));
  CHECK(x[0][0][0].item<float>() == Approx(1.0));
  CHECK(x[1][0][0].item<float>() == Approx(3.0));
  CHECK(x[2][0][0].item<float>() == Approx(1.0));
  // Vertical stripes 255,0,0,0 at a 4x reduction: antialiasing averages them
  // (63.75); plain bilinear would sample between two dark columns (0).
  auto stripes = torch::zeros({3, 128, 128}, torch::kUInt8);
  stripes.index_put_({torch::indexing::Slice(), torch::indexing::Slice(),
                      torch::indexing::Slice(0, torch::indexing::None, 4)},
                     255);
  const Normalization identity{{0, 0, 0}, {1, 1, 1}};
  const auto small = image_to_input(stripes, identity) * 255;
  CHECK(small.sizes() == c10::IntArrayRef({3, 32, 32}));
  CHECK(small.mean().item<double>() == Approx(63.75).margin(0.5));
  CHECK(small.std().item<double>() < 20);
}
