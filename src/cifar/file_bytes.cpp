// file_bytes.cpp: see file_bytes.h.
#include "cifar/file_bytes.h"

#include <fmt/format.h>

#include <cerrno>
#include <cstring>
#include <fstream>
#include <stdexcept>

namespace cifar {
namespace fs = std::filesystem;

std::string read_file_bytes(const fs::path& path, const std::string& what, uint64_t max_bytes) {
  std::error_code ec;
  const auto status = fs::status(path, ec);
  if (ec || !fs::exists(status)) {
    throw std::runtime_error(fmt::format("{} {} does not exist", what, path.string()));
  }
  if (fs::is_directory(status)) {
    throw std::runtime_error(fmt::format("{} {} is a directory, not a file", what, path.string()));
  }
  std::ifstream in(path, std::ios::binary);
  if (!in) {
    throw std::runtime_error(
        fmt::format("cannot open {} {}: {}", what, path.string(), std::strerror(errno)));
  }
  in.seekg(0, std::ios::end);
  const auto size = static_cast<uint64_t>(in.tellg());
  if (size > max_bytes) {
    throw std::runtime_error(fmt::format("{} {} is {} bytes, more than the {} this tool reads",
                                         what, path.string(), size, max_bytes));
  }
  in.seekg(0);
  std::string bytes(size, '\0');
  if (!in.read(bytes.data(), static_cast<std::streamsize>(size))) {
    throw std::runtime_error(fmt::format("cannot read {} {}", what, path.string()));
  }
  return bytes;
}

}  // namespace cifar
