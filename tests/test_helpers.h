// test_helpers.h: temporary folders and small CIFAR-10 files for the tests.
#pragma once

#include <cstdint>
#include <filesystem>
#include <fstream>
#include <random>
#include <string>
#include <vector>

#include "cifar/data.h"

namespace cifar::test {

// A fresh folder under the system temp dir, removed when the object goes.
class TempDir {
 public:
  TempDir() {
    std::random_device rd;
    path_ = std::filesystem::temp_directory_path() / ("cifar-test-" + std::to_string(rd()));
    std::filesystem::create_directories(path_);
  }
  ~TempDir() {
    std::error_code ec;
    std::filesystem::remove_all(path_, ec);
  }
  TempDir(const TempDir&) = delete;
  TempDir& operator=(const TempDir&) = delete;
  const std::filesystem::path& path() const { return path_; }

 private:
  std::filesystem::path path_;
};

inline void write_bytes(const std::filesystem::path& path, const std::vector<uint8_t>& bytes) {
  std::ofstream out(path, std::ios::binary);
  out.write(reinterpret_cast<const char*>(bytes.data()),
            static_cast<std::streamsize>(bytes.size()));
}

// Records whose label is (file * records + r) % 10 and whose pixel bytes
// encode (record, channel): R = r, G = 100 + label, B = 200.
inline std::vector<uint8_t> make_records(int64_t records, int64_t label_offset = 0) {
  std::vector<uint8_t> bytes;
  for (int64_t r = 0; r < records; ++r) {
    const auto label = static_cast<uint8_t>((label_offset + r) % 10);
    bytes.push_back(label);
    bytes.insert(bytes.end(), 1024, static_cast<uint8_t>(r));
    bytes.insert(bytes.end(), 1024, static_cast<uint8_t>(100 + label));
    bytes.insert(bytes.end(), 1024, static_cast<uint8_t>(200));
  }
  return bytes;
}

// A complete small data set: 5 training files and a test file.
inline void write_small_cifar(const std::filesystem::path& dir, int64_t records) {
  for (const auto& split : {Split::kTrain, Split::kTest}) {
    const auto names = batch_file_names(split);
    for (size_t f = 0; f < names.size(); ++f) {
      write_bytes(dir / names[f], make_records(records, static_cast<int64_t>(f) * records));
    }
  }
}

}  // namespace cifar::test
