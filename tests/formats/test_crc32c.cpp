// CRC-32C against published vectors (RFC 3720 B.4, and the "check" value).
#include <catch2/catch.hpp>

#include <string>
#include <vector>

#include "cifar/formats/crc32c.h"

using cifar::crc32c;

TEST_CASE("crc32c matches the iSCSI test vectors", "[crc32c]") {
  CHECK(crc32c(std::string_view("123456789")) == 0xE3069283u);
  CHECK(crc32c(std::string_view("")) == 0x00000000u);
  CHECK(crc32c(std::string_view("a")) == 0xC1D04330u);
  const std::vector<uint8_t> zeros(32, 0x00), ones(32, 0xFF);
  std::vector<uint8_t> up(32), down(32);
  for (size_t i = 0; i < 32; ++i) {
    up[i] = static_cast<uint8_t>(i);
    down[i] = static_cast<uint8_t>(31 - i);
  }
  CHECK(crc32c(zeros) == 0x8A9136AAu);
  CHECK(crc32c(ones) == 0x62A8AB43u);
  CHECK(crc32c(up) == 0x46DD794Eu);
  CHECK(crc32c(down) == 0x113FDB5Cu);
}

TEST_CASE("the span and string_view overloads agree", "[crc32c]") {
  const std::string text = "The quick brown fox jumps over the lazy dog";
  const std::vector<uint8_t> bytes(text.begin(), text.end());
  CHECK(crc32c(bytes) == crc32c(std::string_view(text)));
  CHECK(crc32c(bytes) == 0x22620404u);
}

TEST_CASE("TFRecord's mask rotates right by 15 and adds 0xa282ead8", "[crc32c]") {
  CHECK(cifar::mask_crc32c(0) == 0xa282ead8u);
  CHECK(cifar::mask_crc32c(0x00008000u) == 0xa282ead9u);  // bit 15 rotates to bit 0
  const std::vector<uint8_t> digits{'1', '2', '3', '4', '5', '6', '7', '8', '9'};
  const uint32_t crc = 0xE3069283u;
  CHECK(cifar::masked_crc32c(digits) == ((crc >> 15) | (crc << 17)) + 0xa282ead8u);
}
