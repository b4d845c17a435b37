// checkpoint_bytes.h: what writing a checkpoint (checkpoint.cpp) and checking
// one (checkpoint_header.cpp) share: the little-endian u32 fields of the
// file's front, and the error that names the file.
#pragma once

#include <fmt/format.h>

#include <cstdint>
#include <stdexcept>
#include <string>

namespace cifar::checkpoint_bytes {

inline void put_u32(std::string& out, uint32_t v) {
  for (int i = 0; i < 4; ++i) out.push_back(static_cast<char>((v >> (8 * i)) & 0xff));
}

inline uint32_t get_u32(const uint8_t* p) {
  return static_cast<uint32_t>(p[0]) | static_cast<uint32_t>(p[1]) << 8 |
         static_cast<uint32_t>(p[2]) << 16 | static_cast<uint32_t>(p[3]) << 24;
}

// "checkpoint SOURCE: PROBLEM", as a std::runtime_error.
[[noreturn]] inline void fail(const std::string& source, const std::string& problem) {
  throw std::runtime_error(fmt::format("checkpoint {}: {}", source, problem));
}

}  // namespace cifar::checkpoint_bytes
