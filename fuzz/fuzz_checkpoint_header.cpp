// fuzz_checkpoint_header.cpp: libFuzzer target for the checkpoint header checks.
//
// Any byte string must either parse into a header whose payload lies inside
// the input, or be refused with std::runtime_error: never crash, hang, or let
// an exception of another kind escape. The input is tried twice: as it is
// (which exercises the checksum refusal and its damage hints, since a random
// SHA-256 never matches), and "sealed": with the current format version and
// a correct SHA-256 appended, which takes the JSON and length checks behind
// the checksum. A sealed input that parses must be verified, and flipping
// any one of its bytes (chosen by the input) must make it refused.
#include <cstdint>
#include <cstdlib>
#include <span>
#include <stdexcept>
#include <string>

#include "cifar/formats/checksum.h"
#include "cifar/io/checkpoint.h"

namespace {

bool parses(const std::string& bytes, bool* verified) {
  const auto* p = reinterpret_cast<const uint8_t*>(bytes.data());
  try {
    const auto header = cifar::parse_checkpoint_header(std::span(p, bytes.size()), "fuzz.pt");
    const size_t end = bytes.size() - (header.verified ? cifar::kChecksumBytes : 0);
    if (header.payload_offset > end || header.payload_size != end - header.payload_offset) {
      std::abort();
    }
    if (header.info.class_names.size() != static_cast<size_t>(header.info.num_classes)) {
      std::abort();
    }
    *verified = header.verified;
    return true;
  } catch (const std::runtime_error&) {
    return false;
  }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  std::string raw(reinterpret_cast<const char*>(data), size);
  bool verified = false;
  parses(raw, &verified);

  if (size < 16) return 0;
  std::string sealed = raw;
  for (int i = 0; i < 4; ++i) {
    sealed[8 + i] = static_cast<char>((cifar::kCheckpointFormatVersion >> (8 * i)) & 0xff);
  }
  const auto digest =
      cifar::sha256(std::span(reinterpret_cast<const uint8_t*>(sealed.data()), sealed.size()));
  sealed.append(reinterpret_cast<const char*>(digest.data()), digest.size());
  if (!parses(sealed, &verified)) return 0;
  if (!verified) std::abort();
  // One flipped bit anywhere after the magic must be refused.
  const size_t at = 8 + (static_cast<size_t>(data[size - 1]) * 7919 + size) % (sealed.size() - 8);
  sealed[at] = static_cast<char>(sealed[at] ^ (1 << (data[0] % 8)));
  if (parses(sealed, &verified)) std::abort();
  return 0;
}
