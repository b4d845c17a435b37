// normalization_range.cpp: the range of a normalisation (see normalization_range.h).
#include "cifar/io/normalization_range.h"

#include <fmt/format.h>

namespace cifar {

std::string channel_problem(const std::array<double, 3>& values, bool is_std) {
  const double lo = is_std ? 0.001 : 0.0, hi = 1.0;
  for (double v : values) {
    if (!(v >= lo && v <= hi)) {  // NaN too
      return fmt::format("every {} must be in [{}, 1] (of pixels scaled to 0-1{}), not {}",
                         is_std ? "std" : "mean", lo,
                         v > 1 ? "; divide values in 0-255 units by 255" : "", v);
    }
  }
  return {};
}

}  // namespace cifar
