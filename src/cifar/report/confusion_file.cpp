// confusion_file.cpp: write confusion.csv atomically, names quoted as CSV needs.
#include "cifar/report/confusion_file.h"

#include <fmt/format.h>

#include <stdexcept>

#include "cifar/core/file_io.h"

namespace cifar {

std::string csv_field(const std::string& text) {
  if (text.find_first_of(",\"\r\n") == std::string::npos) return text;
  std::string out = "\"";
  for (const char ch : text) {
    if (ch == '"') out += '"';  // a quote inside a quoted field is doubled (RFC 4180)
    out += ch;
  }
  return out + '"';
}

void write_confusion_csv(const std::filesystem::path& path, std::span<const int64_t> confusion,
                         const std::vector<std::string>& names) {
  const size_t n = names.size();
  if (confusion.size() != n * n) {
    throw std::invalid_argument(
        fmt::format("write_confusion_csv: {} counts for {} class names", confusion.size(), n));
  }
  std::string out = "true\\predicted";
  for (const auto& name : names) out += ',' + csv_field(name);
  out += '\n';
  for (size_t r = 0; r < n; ++r) {
    out += csv_field(names[r]);
    for (size_t c = 0; c < n; ++c) out += fmt::format(",{}", confusion[r * n + c]);
    out += '\n';
  }
  write_file_atomically(path, out);
}

}  // namespace cifar
