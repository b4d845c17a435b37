// crc32c.h: CRC-32C (Castagnoli), as iSCSI (RFC 3720) and TFRecord use it.
//
// A byte-at-a-time table implementation: the event files it checks are a few
// kilobytes per epoch, so speed does not matter. masked_crc32c() is the
// rotated-and-offset form TFRecord stores, so that a CRC of data that itself
// contains CRCs stays well distributed.
#pragma once

#include <cstdint>
#include <span>
#include <string_view>

namespace cifar {

// crc32c("123456789") == 0xE3069283.
uint32_t crc32c(std::span<const uint8_t> data);
uint32_t crc32c(std::string_view data);

// TFRecord's mask: ((crc >> 15) | (crc << 17)) + 0xa282ead8.
uint32_t mask_crc32c(uint32_t crc);
uint32_t masked_crc32c(std::span<const uint8_t> data);

}  // namespace cifar
