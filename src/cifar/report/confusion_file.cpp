// confusion_file.cpp: write confusion.csv through a temporary file.
#include "cifar/report/confusion_file.h"

#include <fmt/format.h>

#include <fstream>
#include <stdexcept>

namespace cifar {

void write_confusion_csv(const std::filesystem::path& path, std::span<const int64_t> confusion,
                         const std::vector<std::string>& names) {
  const size_t n = names.size();
  if (confusion.size() != n * n) {
    throw std::invalid_argument(
        fmt::format("write_confusion_csv: {} counts for {} class names", confusion.size(), n));
  }
  auto tmp = path;
  tmp += ".tmp";
  {
    std::ofstream out(tmp, std::ios::trunc);
    if (!out) throw std::runtime_error(fmt::format("cannot write {}", tmp.string()));
    out << "true\\predicted";
    for (const auto& name : names) out << ',' << name;
    out << '\n';
    for (size_t r = 0; r < n; ++r) {
      out << names[r];
      for (size_t c = 0; c < n; ++c) out << ',' << confusion[r * n + c];
      out << '\n';
    }
    out.flush();
    if (!out) throw std::runtime_error(fmt::format("cannot write {} (disk full?)", tmp.string()));
  }
  std::error_code ec;
  std::filesystem::rename(tmp, path, ec);
  if (ec) {
    throw std::runtime_error(
        fmt::format("cannot rename {} to {}: {}", tmp.string(), path.string(), ec.message()));
  }
}

}  // namespace cifar
