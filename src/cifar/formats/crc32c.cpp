// crc32c.cpp: table-driven CRC-32C (reflected polynomial 0x82F63B78).
#include "cifar/formats/crc32c.h"

#include <array>

namespace cifar {
namespace {

constexpr std::array<uint32_t, 256> make_table() {
  std::array<uint32_t, 256> table{};
  for (uint32_t i = 0; i < 256; ++i) {
    uint32_t c = i;
    for (int k = 0; k < 8; ++k) c = (c & 1) ? (c >> 1) ^ 0x82F63B78u : c >> 1;
    table[i] = c;
  }
  return table;
}

constexpr auto kTable = make_table();

}  // namespace

uint32_t crc32c(std::span<const uint8_t> data) {
  uint32_t crc = 0xFFFFFFFFu;
  for (const uint8_t b : data) crc = kTable[(crc ^ b) & 0xFFu] ^ (crc >> 8);
  return crc ^ 0xFFFFFFFFu;
}

uint32_t crc32c(std::string_view data) {
  return crc32c(std::span(reinterpret_cast<const uint8_t*>(data.data()), data.size()));
}

uint32_t mask_crc32c(uint32_t crc) {
  return ((crc >> 15) | (crc << 17)) + 0xa282ead8u;
}

uint32_t masked_crc32c(std::span<const uint8_t> data) {
  return mask_crc32c(crc32c(data));
}

}  // namespace cifar
