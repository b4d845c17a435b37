// types.cpp: naming the shared enums.
#include "cifar/core/types.h"

namespace cifar {

const char* to_string(AmpMode amp) {
  return name_of(kAmpNames, amp);
}

}  // namespace cifar
