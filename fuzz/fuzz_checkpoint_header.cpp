// fuzz_checkpoint_header.cpp: libFuzzer target for the checkpoint header checks.
//
// Any byte string must either parse into a header whose payload lies inside
// the input, or be refused with std::runtime_error: never crash, hang, or let
// an exception of another kind escape.
#include <cstdint>
#include <cstdlib>
#include <span>
#include <stdexcept>

#include "cifar/checkpoint.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  try {
    const auto header = cifar::parse_checkpoint_header(std::span(data, size), "fuzz.pt");
    if (header.payload_offset > size || header.payload_size != size - header.payload_offset) {
      std::abort();
    }
    if (header.info.class_names.size() != static_cast<size_t>(header.info.num_classes)) {
      std::abort();
    }
  } catch (const std::runtime_error&) {
  }
  return 0;
}
