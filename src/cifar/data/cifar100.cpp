// cifar100.cpp: reading and validating the CIFAR-100 binary files.
#include "cifar/data/cifar100.h"

#include <fmt/format.h>
#include <spdlog/spdlog.h>
#include <sys/stat.h>

#include <array>
#include <cerrno>
#include <cstring>

#include "cifar/core/enum_names.h"
#include "cifar/core/errors.h"
#include "cifar/core/file_io.h"

namespace cifar {
namespace fs = std::filesystem;

namespace {

constexpr const char* kCifar100DownloadHint =
    "get the data set with scripts/download_cifar100.sh, or point --data at the "
    "cifar-100-binary folder (train.bin, test.bin, fine_label_names.txt, coarse_label_names.txt)";

// train.bin is 153,700,000 bytes; anything far larger is not one.
constexpr uint64_t kMaxFileBytes = uint64_t{256} << 20;

int64_t official_records(Split split) {
  return split == Split::kTrain ? 50000 : 10000;
}

void check_present(const fs::path& path) {
  struct stat st {};
  if (::stat(path.c_str(), &st) != 0 && errno == ENOENT) {
    throw std::runtime_error(fmt::format("{} is missing from {}: {}", path.filename().string(),
                                         path.parent_path().string(), kCifar100DownloadHint));
  }
}

std::vector<std::string> read_names(const fs::path& dir, LabelSet labels) {
  const fs::path path =
      dir / (labels == LabelSet::kFine ? "fine_label_names.txt" : "coarse_label_names.txt");
  check_present(path);
  auto names = read_name_lines(path, "CIFAR-100 class-name file");
  if (static_cast<int64_t>(names.size()) != cifar100_classes(labels)) {
    throw std::runtime_error(
        fmt::format("{} names {} classes, expected {} (one per line, the {} labels in order): {}",
                    path.string(), names.size(), cifar100_classes(labels), to_string(labels),
                    kCifar100DownloadHint));
  }
  return names;
}

}  // namespace

std::string to_string(LabelSet labels) {
  return name_of(kLabelSetNames, labels);
}

int64_t cifar100_classes(LabelSet labels) {
  return labels == LabelSet::kFine ? 100 : 20;
}

const std::vector<std::string>& cifar100_file_names() {
  static const std::vector<std::string> names{"train.bin", "test.bin", "fine_label_names.txt",
                                              "coarse_label_names.txt"};
  return names;
}

Normalization cifar100_normalization() {
  return Normalization{{0.5071, 0.4865, 0.4409}, {0.2673, 0.2564, 0.2762}};
}

void parse_cifar100_records(std::span<const uint8_t> bytes, const std::string& source,
                            LabelSet labels, uint8_t* images, int64_t* label_out) {
  const auto records = static_cast<int64_t>(bytes.size()) / kCifar100RecordBytes;
  // Each fine class belongs to one coarse class: the record that first gave
  // a fine label its coarse one, checked against every later record.
  std::array<int64_t, 100> first_with_fine{};
  first_with_fine.fill(-1);
  for (int64_t r = 0; r < records; ++r) {
    const uint8_t* record = bytes.data() + r * kCifar100RecordBytes;
    if (record[0] >= 20 || record[1] >= 100) {
      throw std::runtime_error(fmt::format(
          "{}: record {} has coarse label {} and fine label {}, outside 0-19 and 0-99; the file "
          "is corrupt or not CIFAR-100 (CIFAR-10 files have another layout): {}",
          source, r, record[0], record[1], kCifar100DownloadHint));
    }
    int64_t& first = first_with_fine[record[1]];
    if (first < 0) first = r;
    const uint8_t first_coarse = bytes[static_cast<size_t>(first * kCifar100RecordBytes)];
    if (record[0] != first_coarse) {
      throw std::runtime_error(fmt::format(
          "{}: record {} puts fine label {} in coarse class {}, record {} in coarse class {}; "
          "in CIFAR-100 each fine class belongs to one coarse class, so the file is corrupt: {}",
          source, r, record[1], record[0], first, first_coarse, kCifar100DownloadHint));
    }
    label_out[r] = labels == LabelSet::kFine ? record[1] : record[0];
    std::memcpy(images + r * kCifarImageBytes, record + 2, kCifarImageBytes);
  }
}

ImageSplit read_cifar100(const fs::path& dir, Split split, LabelSet labels) {
  check_readable_directory(dir, "CIFAR-100 directory", kCifar100DownloadHint);
  const fs::path path = dir / (split == Split::kTrain ? "train.bin" : "test.bin");
  check_present(path);
  const std::string bytes = read_file(path, kMaxFileBytes, "CIFAR-100 data file");
  const auto size = static_cast<int64_t>(bytes.size());
  if (size == 0) {
    throw std::runtime_error(fmt::format(
        "{} is empty (0 bytes), where CIFAR-100 has {} images of {} bytes (an interrupted "
        "download?): {}",
        path.string(), official_records(split), kCifar100RecordBytes, kCifar100DownloadHint));
  }
  if (size % kCifar100RecordBytes != 0) {
    // Past the official file's length, bytes were added; short of it, the
    // file may be cut or a subset with bytes added: say both.
    const int64_t whole = size / kCifar100RecordBytes;
    const std::string why =
        whole >= official_records(split)
            ? fmt::format("; {} bytes follow its last whole record (bytes were appended)",
                          size % kCifar100RecordBytes)
            : "; the file looks truncated (an interrupted download?) or has bytes added";
    throw std::runtime_error(
        fmt::format("{} is {} bytes, not a whole number of {}-byte records{}: {}", path.string(),
                    size, kCifar100RecordBytes, why, kCifar100DownloadHint));
  }
  const int64_t n = size / kCifar100RecordBytes;
  if (n != official_records(split)) {
    spdlog::info("{} holds {} images (the official file holds {})", path.string(), n,
                 official_records(split));
  }
  ImageSplit data;
  data.images = torch::empty(
      {n, kCifarImage.channels, kCifarImage.image_size, kCifarImage.image_size}, torch::kUInt8);
  data.labels = torch::empty({n}, torch::kInt64);
  parse_cifar100_records(std::span(reinterpret_cast<const uint8_t*>(bytes.data()), bytes.size()),
                         path.string(), labels, data.images.data_ptr<uint8_t>(),
                         data.labels.data_ptr<int64_t>());
  data.class_names = read_names(dir, labels);
  return data;
}

}  // namespace cifar
