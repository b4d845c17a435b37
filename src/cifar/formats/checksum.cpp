// checksum.cpp: SHA-256 through OpenSSL's EVP interface.
#include "cifar/formats/checksum.h"

#include <fmt/format.h>
#include <openssl/evp.h>

#include <stdexcept>

namespace cifar {

struct Sha256::Context {
  EVP_MD_CTX* md = nullptr;
};

Sha256::Sha256() : ctx_(std::make_unique<Context>()) {
  ctx_->md = EVP_MD_CTX_new();
  if (ctx_->md == nullptr || EVP_DigestInit_ex(ctx_->md, EVP_sha256(), nullptr) != 1) {
    EVP_MD_CTX_free(ctx_->md);
    throw std::runtime_error("OpenSSL could not start a SHA-256 digest");
  }
}

Sha256::~Sha256() {
  EVP_MD_CTX_free(ctx_->md);
}

void Sha256::update(std::span<const uint8_t> bytes) {
  if (EVP_DigestUpdate(ctx_->md, bytes.data(), bytes.size()) != 1) {
    throw std::runtime_error("OpenSSL SHA-256 update failed");
  }
}

Sha256Digest Sha256::digest() {
  Sha256Digest out{};
  unsigned int len = 0;
  if (EVP_DigestFinal_ex(ctx_->md, out.data(), &len) != 1 || len != out.size()) {
    throw std::runtime_error("OpenSSL SHA-256 finalisation failed");
  }
  return out;
}

Sha256Digest sha256(std::span<const uint8_t> bytes) {
  Sha256 h;
  h.update(bytes);
  return h.digest();
}

std::string to_hex(const Sha256Digest& digest) {
  std::string out;
  for (uint8_t b : digest) out += fmt::format("{:02x}", b);
  return out;
}

}  // namespace cifar
