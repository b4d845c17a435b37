// weights_normalization.h: the normalisation a weights file's images take.
//
// --mean/--std when given (a warning when the file records others), else the
// file's metadata, else the training default, with a warning: a wrong
// normalisation costs accuracy without an error (the PyTorch tutorial's
// 0.5,0.5,0.5 taken as CIFAR-10's: its Net 37% -> 34%).
#pragma once

#include <optional>
#include <string>

#include "cifar/core/types.h"

namespace cifar {

struct ChosenNormalization {
  Normalization normalization;
  std::string note;   // where it came from, for the log
  bool known = true;  // false: the default, assumed (the file does not say)
};

// `recorded`: the file's metadata's (`says` names it: "the file's
// metadata"); `given`: --mean and --std. std::invalid_argument naming the
// option for values out of range.
ChosenNormalization choose_normalization(const std::optional<Normalization>& given,
                                         const std::optional<Normalization>& recorded,
                                         const std::string& source, const std::string& says);

}  // namespace cifar
