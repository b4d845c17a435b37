// types.cpp: parsing and naming the shared enums.
#include "cifar/core/types.h"

#include <array>

#include "cifar/core/enum_names.h"

namespace cifar {

namespace {
constexpr std::array<EnumName<AmpMode>, 4> kAmpNames{{{AmpMode::kAuto, "auto"},
                                                      {AmpMode::kBf16, "bf16"},
                                                      {AmpMode::kFp16, "fp16"},
                                                      {AmpMode::kOff, "off"}}};
}  // namespace

AmpMode parse_amp(const std::string& text) {
  return parse_name(kAmpNames, "--amp", text);
}

const char* to_string(AmpMode amp) {
  return name_of(kAmpNames, amp);
}

}  // namespace cifar
