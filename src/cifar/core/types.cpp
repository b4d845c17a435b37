// types.cpp: parsing and naming the shared enums.
#include "cifar/core/types.h"

#include <fmt/format.h>

#include "cifar/core/errors.h"

namespace cifar {

AmpMode parse_amp(const std::string& text) {
  if (text == "off") return AmpMode::kOff;
  if (text == "bf16") return AmpMode::kBf16;
  if (text == "fp16") {
    throw UsageError(
        "--amp fp16 needs dynamic loss scaling, which cifar-train does not implement; use --amp "
        "bf16 (as fast on Ampere and newer GPUs, and it needs no loss scaling)");
  }
  throw UsageError(fmt::format("unknown --amp '{}': choose bf16 or off", text));
}

const char* to_string(AmpMode amp) {
  return amp == AmpMode::kBf16 ? "bf16" : "off";
}

}  // namespace cifar
