// data.cpp: reading and validating the CIFAR-10 binary batch files.
#include "cifar/data.h"

#include <fmt/format.h>

#include <cstring>
#include <fstream>

#include "cifar/errors.h"

namespace cifar {
namespace fs = std::filesystem;

namespace {

constexpr const char* kDownloadHint =
    "get the data set with scripts/download_cifar10.sh, or point --data (or the CIFAR10_DIR "
    "environment variable) at a folder holding data_batch_1.bin ... test_batch.bin";

std::vector<uint8_t> read_file_bytes(const fs::path& path) {
  std::ifstream in(path, std::ios::binary | std::ios::ate);
  if (!in)
    throw std::runtime_error(fmt::format("cannot open {}: {}", path.string(), kDownloadHint));
  const auto size = static_cast<std::streamsize>(in.tellg());
  std::vector<uint8_t> bytes(static_cast<size_t>(size));
  in.seekg(0);
  if (size > 0 && !in.read(reinterpret_cast<char*>(bytes.data()), size)) {
    throw std::runtime_error(fmt::format("cannot read {} (I/O error)", path.string()));
  }
  return bytes;
}

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
    if (record[0] >= kNumClasses) {
      throw std::runtime_error(fmt::format(
          "{}: record {} has label {}, outside 0-9; the file is corrupt or not CIFAR-10 "
          "(CIFAR-100 files have another layout): download it again with "
          "scripts/download_cifar10.sh",
          source, r, record[0]));
    }
    labels[r] = record[0];
    std::memcpy(images + r * kImageBytes, record + 1, kImageBytes);
  }
}

Cifar10Dataset read_cifar10(const fs::path& dir, Split split, const Cifar10Options& options) {
  TORCH_CHECK(options.records_per_file > 0, "records_per_file must be positive, got ",
              options.records_per_file);
  std::error_code ec;
  if (!fs::exists(dir, ec)) {
    throw std::runtime_error(
        fmt::format("CIFAR-10 directory {} does not exist: {}", dir.string(), kDownloadHint));
  }
  if (!fs::is_directory(dir, ec)) {
    throw std::runtime_error(
        fmt::format("CIFAR-10 path {} is not a directory: {}", dir.string(), kDownloadHint));
  }
  const auto files = batch_file_names(split, options);
  for (const auto& name : files) {
    if (!fs::exists(dir / name, ec)) {
      throw std::runtime_error(
          fmt::format("{} is missing from {}: {}", name, dir.string(), kDownloadHint));
    }
  }

  const int64_t n = options.records_per_file * static_cast<int64_t>(files.size());
  Cifar10Dataset data;
  data.images = torch::empty({n, kChannels, kImageSide, kImageSide}, torch::kUInt8);
  data.labels = torch::empty({n}, torch::kInt64);
  for (size_t f = 0; f < files.size(); ++f) {
    const auto path = dir / files[f];
    const auto bytes = read_file_bytes(path);
    const int64_t offset = static_cast<int64_t>(f) * options.records_per_file;
    parse_cifar10_records(bytes, path.string(), options.records_per_file,
                          data.images.data_ptr<uint8_t>() + offset * kImageBytes,
                          data.labels.data_ptr<int64_t>() + offset);
  }
  data.class_names = read_class_names(dir);
  return data;
}

std::vector<std::string> read_class_names(const fs::path& dir) {
  std::ifstream in(dir / "batches.meta.txt");
  if (!in) return default_class_names();
  std::vector<std::string> names;
  for (std::string line; std::getline(in, line);) {
    while (!line.empty() && (line.back() == '\r' || line.back() == ' ')) line.pop_back();
    if (!line.empty()) names.push_back(line);
  }
  // A meta file that does not hold exactly ten names is not trusted.
  return names.size() == static_cast<size_t>(kNumClasses) ? names : default_class_names();
}

fs::path resolve_data_dir(const std::optional<std::string>& flag, const char* env_value) {
  if (flag && !flag->empty()) return *flag;
  if (env_value != nullptr && *env_value != '\0') return env_value;
  return fs::path("data") / "cifar-10-batches-bin";
}

}  // namespace cifar
