// normalization_range.h: the range every normalisation from outside must be
// in: --mean and --std (config/normalization_flags.h), a weights file's
// metadata (weights_metadata.h), a checkpoint's header (checkpoint.h).
#pragma once

#include <array>
#include <string>

namespace cifar {

// Empty when `values` are usable as a mean (is_std false) or a std, else why
// not: of pixels scaled to 0-1, a mean is in [0, 1] and a std in [0.001, 1]
// (1e308, 0-255 units, 1e-320 would overflow or give NaN).
std::string channel_problem(const std::array<double, 3>& values, bool is_std);

}  // namespace cifar
