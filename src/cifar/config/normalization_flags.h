// normalization_flags.h: --mean and --std as typed on a command line, for the
// tools that load a weights file that may not say how it was normalised. The
// range they must be in is io/normalization_range.h's.
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

// UsageError unless --mean and --std are both given or both left out,
// naming the one missing: every tool's check of the pair.
void check_mean_std_pair(bool has_mean, bool has_std);

// --mean and --std together: none when both are empty. UsageError when only
// one is given, a value is not three finite numbers, or a std is not > 0.
std::optional<Normalization> normalization_from_flags(const std::string& mean,
                                                      const std::string& std);

}  // namespace cifar
