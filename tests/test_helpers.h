// test_helpers.h: temporary folders and small CIFAR-10 files for the tests.
#pragma once

#include <cstdint>
#include <filesystem>
#include <fstream>
#include <istream>
#include <random>
#include <sstream>
#include <string>
#include <utility>
#include <vector>

#include "cifar/data/cifar10.h"

namespace cifar::test {

// The whole of a stream, read through its rdbuf (GCC 12's -Wnull-dereference
// flags libstdc++'s own code when a string is built from istreambuf_iterators).
inline std::string read_all(std::istream& in) {
  std::ostringstream whole;
  whole << in.rdbuf();
  return std::move(whole).str();
}

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

// An easy synthetic task: the label is written into the image's brightness
// pattern (class c has a bright row band at position c), plus noise.
inline ImageSplit synthetic(int64_t n, uint64_t seed) {
  torch::manual_seed(seed);
  ImageSplit d;
  d.labels = torch::randint(0, 10, {n}, torch::kInt64);
  auto images = torch::randint(0, 60, {n, 3, 32, 32}, torch::kInt64);
  for (int64_t i = 0; i < n; ++i) {
    const int64_t c = d.labels[i].item<int64_t>();
    images[i].slice(1, 3 * c, 3 * c + 3) += 120;
  }
  d.images = images.to(torch::kUInt8);
  d.class_names = default_class_names();
  return d;
}

// Writes `split` as a full-size data set in the real format (5 training files
// and a test file, each the same 10,000 records), for the readers that insist.
inline void write_full_cifar(const std::filesystem::path& dir, const ImageSplit& split) {
  std::vector<uint8_t> records;
  records.reserve(static_cast<size_t>(split.size() * kRecordBytes));
  const auto images = split.images.contiguous();
  for (int64_t i = 0; i < split.size(); ++i) {
    records.push_back(static_cast<uint8_t>(split.labels[i].item<int64_t>()));
    const uint8_t* p = images.data_ptr<uint8_t>() + i * kCifarImageBytes;
    records.insert(records.end(), p, p + kCifarImageBytes);
  }
  for (const auto& name : batch_file_names(Split::kTrain)) write_bytes(dir / name, records);
  write_bytes(dir / "test_batch.bin", records);
}

}  // namespace cifar::test
