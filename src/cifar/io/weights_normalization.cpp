// weights_normalization.cpp: the normalisation a weights file's images take
// (see weights_normalization.h).
#include "cifar/io/weights_normalization.h"

#include <fmt/format.h>
#include <fmt/ranges.h>
#include <spdlog/spdlog.h>

#include <stdexcept>

#include "cifar/io/normalization_range.h"

namespace cifar {

ChosenNormalization choose_normalization(const std::optional<Normalization>& given,
                                         const std::optional<Normalization>& recorded,
                                         const std::string& source, const std::string& says) {
  ChosenNormalization out;
  if (given) {
    out.normalization = *given;
    out.note = "as given on the command line";
    if (recorded && *recorded != *given) {
      // Warned as the image options are (weights_images.h).
      const auto flags = [](const Normalization& n) {
        return fmt::format("--mean {} --std {}", fmt::join(n.mean, ","), fmt::join(n.std, ","));
      };
      spdlog::warn(
          "weights file {}: {} given, over what {} records ({}): images are normalised as "
          "given, which changes the model's answers; leave the options out to normalise them "
          "as trained",
          source, flags(*given), says, flags(*recorded));
    }
  } else if (recorded) {
    out.normalization = *recorded;
    out.note = fmt::format("from {}", says);
  } else {
    out.note = "the training default (the file does not say)";
    out.known = false;
    spdlog::warn(
        "weights file {} records no normalisation: its images are normalised with CIFAR-10's "
        "mean {} and std {}; if its weights were trained with others (the PyTorch tutorial's "
        "0.5,0.5,0.5 and 0.5,0.5,0.5; ImageNet's 0.485,0.456,0.406 and 0.229,0.224,0.225), give "
        "them as --mean and --std",
        source, fmt::join(out.normalization.mean, ","), fmt::join(out.normalization.std, ","));
  }
  for (const bool is_std : {false, true}) {  // metadata and headers are checked when read
    const auto& values = is_std ? out.normalization.std : out.normalization.mean;
    if (const auto problem = channel_problem(values, is_std); !problem.empty()) {
      throw std::invalid_argument(
          fmt::format("--{} {}: {}", is_std ? "std" : "mean", fmt::join(values, ","), problem));
    }
  }
  return out;
}

}  // namespace cifar
