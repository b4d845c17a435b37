// types.cpp: parsing and naming the shared enums.
#include "cifar/core/types.h"

#include <fmt/format.h>

#include "cifar/core/errors.h"

namespace cifar {

AmpMode parse_amp(const std::string& text) {
  if (text == "off") return AmpMode::kOff;
  if (text == "bf16") return AmpMode::kBf16;
  if (text == "fp16") return AmpMode::kFp16;
  throw UsageError(fmt::format("unknown --amp '{}': choose bf16, fp16 or off", text));
}

const char* to_string(AmpMode amp) {
  switch (amp) {
    case AmpMode::kBf16:
      return "bf16";
    case AmpMode::kFp16:
      return "fp16";
    case AmpMode::kOff:
      break;
  }
  return "off";
}

}  // namespace cifar
