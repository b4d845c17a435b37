// cifar10.cpp: reading and validating the CIFAR-10 binary batch files.
#include "cifar/data/cifar10.h"

#include <fmt/format.h>
#include <spdlog/spdlog.h>
#include <sys/stat.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <sstream>

#include "cifar/core/file_io.h"
#include "cifar/formats/toml_text.h"  // is_utf8, show_bytes

namespace cifar {
namespace fs = std::filesystem;

namespace {

constexpr const char* kDownloadHint =
    "get the data set with scripts/download_cifar10.sh, or point --data (or the CIFAR10_DIR "
    "environment variable) at a folder holding data_batch_1.bin ... test_batch.bin";

// A batch file is 30,730,000 bytes; anything far larger is not one.
constexpr uint64_t kMaxBatchFileBytes = 64 << 20;
constexpr uint64_t kMaxMetaFileBytes = 1 << 20;  // ten names, with room to spare

}  // namespace

const std::vector<std::string>& default_class_names() {
  static const std::vector<std::string> names{"airplane", "automobile", "bird",  "cat",  "deer",
                                              "dog",      "frog",       "horse", "ship", "truck"};
  return names;
}

std::vector<std::string> batch_file_names(Split split, const Cifar10Options& options) {
  if (split == Split::kTest) return {"test_batch.bin"};
  std::vector<std::string> names;
  for (int64_t i = 1; i <= options.train_files; ++i) {
    names.push_back(fmt::format("data_batch_{}.bin", i));
  }
  return names;
}

void parse_cifar10_records(std::span<const uint8_t> bytes, const std::string& source,
                           int64_t records_per_file, uint8_t* images, int64_t* labels) {
  const auto expected = static_cast<size_t>(records_per_file * kRecordBytes);
  if (bytes.size() != expected) {
    const bool truncated = bytes.size() < expected;
    throw std::runtime_error(
        fmt::format("{} is {} bytes, expected {} ({} records of {} bytes){}: {}", source,
                    bytes.size(), expected, records_per_file, kRecordBytes,
                    truncated ? "; the file looks truncated (an interrupted download?)"
                              : "; this is not a CIFAR-10 binary batch file",
                    "download it again with scripts/download_cifar10.sh"));
  }
  for (int64_t r = 0; r < records_per_file; ++r) {
    const uint8_t* record = bytes.data() + r * kRecordBytes;
    if (record[0] >= kCifar10Classes) {
      throw std::runtime_error(fmt::format(
          "{}: record {} has label {}, outside 0-9; the file is corrupt or not CIFAR-10 "
          "(CIFAR-100 files have another layout): download it again with "
          "scripts/download_cifar10.sh",
          source, r, record[0]));
    }
    labels[r] = record[0];
    std::memcpy(images + r * kCifarImageBytes, record + 1, kCifarImageBytes);
  }
}

ImageSplit read_cifar10(const fs::path& dir, Split split, const Cifar10Options& options) {
  TORCH_CHECK(options.records_per_file > 0, "records_per_file must be positive, got ",
              options.records_per_file);
  check_readable_directory(dir, "CIFAR-10 directory", kDownloadHint);
  const auto files = batch_file_names(split, options);
  for (const auto& name : files) {
    struct stat st {};
    if (::stat((dir / name).c_str(), &st) != 0 && errno == ENOENT) {
      throw std::runtime_error(
          fmt::format("{} is missing from {}: {}", name, dir.string(), kDownloadHint));
    }
    check_readable_file(dir / name, "CIFAR-10 batch file");
  }

  const int64_t n = options.records_per_file * static_cast<int64_t>(files.size());
  ImageSplit data;
  data.images = torch::empty(
      {n, kCifarImage.channels, kCifarImage.image_size, kCifarImage.image_size}, torch::kUInt8);
  data.labels = torch::empty({n}, torch::kInt64);
  for (size_t f = 0; f < files.size(); ++f) {
    const auto path = dir / files[f];
    const std::string bytes = read_file(path, kMaxBatchFileBytes, "CIFAR-10 batch file");
    const int64_t offset = static_cast<int64_t>(f) * options.records_per_file;
    parse_cifar10_records(std::span(reinterpret_cast<const uint8_t*>(bytes.data()), bytes.size()),
                          path.string(), options.records_per_file,
                          data.images.data_ptr<uint8_t>() + offset * kCifarImageBytes,
                          data.labels.data_ptr<int64_t>() + offset);
  }
  data.class_names = read_class_names(dir);
  return data;
}

std::vector<std::string> read_name_lines(const fs::path& path, const char* what) {
  // Checked before it is opened: a FIFO or device there is an error, not a wait.
  std::istringstream in(read_file(path, kMaxMetaFileBytes, what));
  std::vector<std::string> names;
  std::vector<int> lines;  // where each name is
  int line_number = 0;
  for (std::string line; std::getline(in, line);) {
    ++line_number;
    while (!line.empty() && (line.back() == '\r' || line.back() == ' ')) line.pop_back();
    if (line.empty()) continue;
    // Names go into checkpoints (JSON), confusion.csv and messages: bytes
    // that are not UTF-8, and control characters (an escape sequence would
    // act on the terminal), are kept visible as \xFF text instead.
    std::string shown;
    for (const char c : is_utf8(line) ? line : show_bytes(line)) {
      const auto byte = static_cast<unsigned char>(c);
      shown += byte < 0x20 || byte == 0x7f ? fmt::format("\\x{:02X}", byte) : std::string(1, c);
    }
    if (shown != line) {
      spdlog::warn("{}: line {} is not plain UTF-8 text; the class name is used as '{}'",
                   path.string(), line_number, shown);
    }
    if (const auto same = std::ranges::find(names, shown); same != names.end()) {
      throw std::runtime_error(fmt::format(
          "{}: the class name '{}' is there twice (lines {} and {}): each class needs a name of "
          "its own; rename one",
          path.string(), shown, lines[static_cast<size_t>(same - names.begin())], line_number));
    }
    names.push_back(shown);
    lines.push_back(line_number);
  }
  return names;
}

std::vector<std::string> read_class_names(const fs::path& dir) {
  const fs::path path = dir / "batches.meta.txt";
  std::error_code ec;
  if (!fs::exists(fs::symlink_status(path, ec))) return default_class_names();
  const auto names = read_name_lines(path, "CIFAR-10 class-name file");
  // A meta file that does not hold exactly ten names is not trusted.
  if (names.size() == static_cast<size_t>(kCifar10Classes)) return names;
  spdlog::warn("{} lists {} names, not CIFAR-10's {}: its standard class names are used",
               path.string(), names.size(), kCifar10Classes);
  return default_class_names();
}

}  // namespace cifar
