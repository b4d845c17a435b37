// normalization_flags.h: --mean and --std as typed on a command line, for the
// tools that load a weights file that may not say how it was normalised, and
// the range every normalisation from outside (flags, a weights file's
// metadata, a checkpoint's header) must be in.
//
// Each takes three numbers, red, green, blue, separated by commas or spaces
// ("0.4914,0.4822,0.4465"). Every mistake is a UsageError naming the flag and
// the text as given.
#pragma once

#include <array>
#include <optional>
#include <string>

#include "cifar/core/types.h"

namespace cifar {

// Three finite numbers from `text`, or UsageError naming `flag` ("--mean").
std::array<double, 3> parse_channels(const std::string& flag, const std::string& text);

// Empty when `values` are usable as a mean (is_std false) or a std, else why
// not: of pixels scaled to 0-1, a mean is in [0, 1] and a std in [0.001, 1]
// (1e308, 0-255 units, 1e-320 would overflow or give NaN).
std::string channel_problem(const std::array<double, 3>& values, bool is_std);

// --mean and --std together: none when both are empty. UsageError when only
// one is given, a value is not three finite numbers, or a std is not > 0.
std::optional<Normalization> normalization_from_flags(const std::string& mean,
                                                      const std::string& std);

}  // namespace cifar
