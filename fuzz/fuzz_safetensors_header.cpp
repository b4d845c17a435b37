// libFuzzer target: the safetensors header checks (and, for headers that
// pass, building the tensors) on arbitrary bytes. Any exception other than
// std::runtime_error, or any crash, is a bug.
#include <cstddef>
#include <cstdint>
#include <span>
#include <stdexcept>

#include "cifar/formats/safetensors.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  try {
    cifar::decode_safetensors(std::span(data, size), "fuzz");
  } catch (const std::runtime_error&) {
  }
  return 0;
}
