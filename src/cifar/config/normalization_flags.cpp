// normalization_flags.cpp: parsing --mean and --std (see normalization_flags.h).
#include "cifar/config/normalization_flags.h"

#include <fmt/format.h>

#include <algorithm>
#include <charconv>
#include <cmath>
#include <sstream>
#include <vector>

#include "cifar/core/errors.h"
#include "cifar/io/normalization_range.h"

namespace cifar {

std::array<double, 3> parse_channels(const std::string& flag, const std::string& text) {
  std::string spaced = text;
  std::replace(spaced.begin(), spaced.end(), ',', ' ');
  std::istringstream in(spaced);
  std::vector<double> values;
  for (std::string word; in >> word;) {
    double v = 0;
    const auto [end, ec] = std::from_chars(word.data(), word.data() + word.size(), v);
    if (ec != std::errc() || end != word.data() + word.size() || !std::isfinite(v)) {
      values.clear();
      break;
    }
    values.push_back(v);
  }
  if (values.size() != 3) {
    throw UsageError(fmt::format(
        "{} takes three numbers (red, green, blue), e.g. {} 0.4914,0.4822,0.4465; got '{}'", flag,
        flag, text));
  }
  return {values[0], values[1], values[2]};
}

void check_mean_std_pair(bool has_mean, bool has_std) {
  if (has_mean != has_std) {
    throw UsageError(
        fmt::format("--mean and --std go together: give {} too", has_mean ? "--std" : "--mean"));
  }
}

std::optional<Normalization> normalization_from_flags(const std::string& mean,
                                                      const std::string& std) {
  if (mean.empty() && std.empty()) return std::nullopt;
  check_mean_std_pair(!mean.empty(), !std.empty());
  Normalization n{parse_channels("--mean", mean), parse_channels("--std", std)};
  for (double s : n.std) {
    if (s <= 0) throw UsageError(fmt::format("--std values must be > 0, got '{}'", std));
  }
  if (const auto p = channel_problem(n.mean, false); !p.empty())
    throw UsageError(fmt::format("--mean '{}': {}", mean, p));
  if (const auto p = channel_problem(n.std, true); !p.empty())
    throw UsageError(fmt::format("--std '{}': {}", std, p));
  return n;
}

}  // namespace cifar
