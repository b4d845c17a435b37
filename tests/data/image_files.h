// image_files.h: PNG and JPEG files written by the image-folder tests (with
// libpng's and libjpeg's own encoders), and the log lines a test captures.
#pragma once

#include <png.h>
#include <spdlog/sinks/ostream_sink.h>
#include <spdlog/spdlog.h>
// clang-format off
#include <cstdio>
#include <jpeglib.h>
// clang-format on
#include <torch/torch.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <memory>
#include <sstream>
#include <stdexcept>
#include <string>

namespace cifar::test {

// (H, W, C) uint8 -> PNG bytes (C = 1, 3 or 4).
inline std::string encode_png(const torch::Tensor& hwc_in) {
  const auto hwc = hwc_in.contiguous();
  png_image image{};
  image.version = PNG_IMAGE_VERSION;
  image.width = static_cast<png_uint_32>(hwc.size(1));
  image.height = static_cast<png_uint_32>(hwc.size(0));
  const int64_t c = hwc.size(2);
  image.format = c == 1 ? PNG_FORMAT_GRAY : c == 3 ? PNG_FORMAT_RGB : PNG_FORMAT_RGBA;
  png_alloc_size_t size = 0;
  if (!png_image_write_to_memory(&image, nullptr, &size, 0, hwc.data_ptr(), 0, nullptr)) {
    throw std::runtime_error("png_image_write_to_memory failed");
  }
  std::string out(size, '\0');
  png_image_write_to_memory(&image, out.data(), &size, 0, hwc.data_ptr(), 0, nullptr);
  out.resize(size);
  return out;
}

// (H, W, 3) uint8 -> JPEG bytes (libjpeg-turbo's defaults, quality 95).
inline std::string encode_jpeg(const torch::Tensor& hwc_in) {
  const auto hwc = hwc_in.contiguous();
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
  const auto* base = hwc.data_ptr<uint8_t>();
  while (info.next_scanline < info.image_height) {
    auto* row = const_cast<JSAMPROW>(base + info.next_scanline * info.image_width * 3);
    jpeg_write_scanlines(&info, &row, 1);
  }
  jpeg_finish_compress(&info);
  jpeg_destroy_compress(&info);
  std::string out(reinterpret_cast<char*>(buffer), size);
  free(buffer);
  return out;
}

inline void write_text(const std::filesystem::path& path, const std::string& bytes) {
  std::filesystem::create_directories(path.parent_path());
  std::ofstream out(path, std::ios::binary | std::ios::trunc);
  out.write(bytes.data(), static_cast<std::streamsize>(bytes.size()));
}

// An (H, W, 3) image whose every pixel is (r, g, b).
inline torch::Tensor solid(int64_t h, int64_t w, int r, int g, int b) {
  return torch::tensor({r, g, b}, torch::kUInt8).view({1, 1, 3}).expand({h, w, 3}).contiguous();
}

// A 32x32 PNG whose pixels are (r, g, b), at path (folders made).
inline void write_png(const std::filesystem::path& path, int r, int g, int b) {
  write_text(path, encode_png(solid(32, 32, r, g, b)));
}

// What spdlog's default logger prints while one of these lives ("%l %v" lines).
class LogCapture {
 public:
  LogCapture() : saved_(spdlog::default_logger()) {
    auto logger = std::make_shared<spdlog::logger>(
        "capture", std::make_shared<spdlog::sinks::ostream_sink_mt>(text_));
    logger->set_pattern("%l %v");
    logger->set_level(spdlog::level::info);
    spdlog::set_default_logger(logger);
  }
  ~LogCapture() { spdlog::set_default_logger(saved_); }
  LogCapture(const LogCapture&) = delete;
  LogCapture& operator=(const LogCapture&) = delete;
  std::string text() const { return text_.str(); }

 private:
  std::shared_ptr<spdlog::logger> saved_;
  std::ostringstream text_;
};

}  // namespace cifar::test
