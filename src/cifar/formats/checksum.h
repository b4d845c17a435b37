// checksum.h: SHA-256 of checkpoint bytes, from OpenSSL's libcrypto.
//
// Every checkpoint ends with the SHA-256 of everything before it (magic,
// version, JSON header, weights). SHA-256 rather than CRC32C because:
//   - any change is detected with certainty for practical purposes, whatever
//     its shape: a flipped bit, a truncated or extended file, and also a
//     deliberate edit of the JSON header that stays valid JSON (a CRC can be
//     made to match by an edit; a SHA-256 cannot);
//   - OpenSSL is a well-kept library on every Debian machine (libssl-dev),
//     so no hashing code of our own;
//   - it is fast enough: with the SHA extensions of current x86 and ARM CPUs
//     OpenSSL hashes about 1 GB/s; `openssl dgst -sha256` (the same
//     libcrypto) takes 0.04-0.05 s for 44.8 MB, the size of a ResNet-18
//     checkpoint, on the 2-core project machine: small next to writing the
//     file with fsync, or loading the model.
#pragma once

#include <array>
#include <cstdint>
#include <memory>
#include <span>
#include <string>

namespace cifar {

using Sha256Digest = std::array<uint8_t, 32>;

// Incremental SHA-256: update() with pieces, then digest() once.
class Sha256 {
 public:
  Sha256();
  ~Sha256();
  Sha256(const Sha256&) = delete;
  Sha256& operator=(const Sha256&) = delete;
  void update(std::span<const uint8_t> bytes);
  Sha256Digest digest();

 private:
  struct Context;
  std::unique_ptr<Context> ctx_;
};

Sha256Digest sha256(std::span<const uint8_t> bytes);

// Lower-case hex, 64 characters.
std::string to_hex(const Sha256Digest& digest);

}  // namespace cifar
