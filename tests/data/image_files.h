// image_files.h: PNG and JPEG files written by the image-folder tests (the
// encoders of formats/image_encoders.h), and the log lines a test captures.
#pragma once

#include <spdlog/sinks/ostream_sink.h>
#include <spdlog/spdlog.h>
#include <torch/torch.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <memory>
#include <sstream>
#include <stdexcept>
#include <string>

#include "cifar/data/image_folder.h"
#include "formats/image_encoders.h"

namespace cifar::test {

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

// Reads a folder's training split with `options`, counting the decodes
// (each calls the progress callback at least once; a read from the cache
// calls none).
struct DecodeCounter {
  ImageFolderOptions options;
  int decodes = 0;
  DecodeCounter() {
    options.progress = [this](int64_t done, int64_t total) { decodes += done == total; };
  }
  ImageSplit read(const std::filesystem::path& dir) {
    return read_image_folder(dir, Split::kTrain, options);
  }
};

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
