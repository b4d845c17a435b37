// fuzz_cifar_reader.cpp: libFuzzer target for the CIFAR-10 record parser.
//
// The first byte picks how many records the "file" must hold (1-4); the rest
// is the file. The parser must either accept it, with every label in 0..9,
// or throw std::runtime_error: never crash, read out of bounds, or accept a
// bad label.
#include <cstdint>
#include <cstdlib>
#include <span>
#include <stdexcept>
#include <vector>

#include "cifar/data/cifar10.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  if (size < 1) return 0;
  const int64_t records = 1 + data[0] % 4;
  std::vector<uint8_t> images(static_cast<size_t>(records * cifar::kImageBytes));
  std::vector<int64_t> labels(static_cast<size_t>(records), -1);
  try {
    cifar::parse_cifar10_records(std::span(data + 1, size - 1), "fuzz.bin", records, images.data(),
                                 labels.data());
  } catch (const std::runtime_error&) {
    return 0;
  }
  for (const int64_t label : labels) {
    if (label < 0 || label >= cifar::kCifar10Classes) std::abort();
  }
  return 0;
}
