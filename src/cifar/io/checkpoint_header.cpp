// checkpoint_header.cpp: checking the front and the checksum of a checkpoint.
//
// Everything that decides whether a checkpoint's bytes can be trusted lives
// here: magic, format version, SHA-256 trailer and lengths (layout in
// checkpoint.h); the JSON header's fields are checkpoint_info.cpp's, loading
// the payload checkpoint.cpp's.
#include <fmt/format.h>

#include <cstring>

#include "cifar/core/errors.h"
#include "cifar/core/file_io.h"
#include "cifar/data/dataset.h"
#include "cifar/formats/checksum.h"
#include "cifar/formats/torch_legacy.h"
#include "cifar/io/checkpoint.h"
#include "cifar/io/checkpoint_bytes.h"
#include "cifar/io/checkpoint_image.h"
#include "cifar/io/normalization_range.h"

namespace cifar {
namespace fs = std::filesystem;
using nlohmann::json;

using checkpoint_bytes::fail;
using checkpoint_bytes::get_u32;
using checkpoint_bytes::put_u32;

namespace {
[[noreturn]] void damaged(const std::string& source, const std::string& why) {
  throw std::runtime_error(fmt::format(
      "checkpoint {} is damaged: {}; it cannot be used: take another checkpoint (the run "
      "folder's last.pt or best.pt) or train again",
      source, why));
}

constexpr size_t kFixed = sizeof(kCheckpointMagic) + 4 + 4;

// Whether the SHA-256 trailer of a version-2 file matches the bytes before
// it, reading the version field as `version_field` (the one stored, or the
// current version to test whether only the version field was damaged).
bool checksum_matches(std::span<const uint8_t> bytes, uint32_t version_field) {
  if (bytes.size() < kFixed + kChecksumBytes) return false;
  const size_t body = bytes.size() - kChecksumBytes;
  std::string version;
  put_u32(version, version_field);
  Sha256 h;
  h.update(bytes.first(8));
  h.update(std::span(reinterpret_cast<const uint8_t*>(version.data()), 4));
  h.update(bytes.subspan(12, body - 12));
  const Sha256Digest d = h.digest();
  return std::memcmp(d.data(), bytes.data() + body, kChecksumBytes) == 0;
}

// For a file whose checksum does not match: what its own lengths say, as a
// hint of what happened (truncated, extended, or bytes changed in place).
std::string damage_hint(std::span<const uint8_t> bytes) {
  const uint64_t header_len = get_u32(bytes.data() + 12);
  if (kFixed + header_len > bytes.size()) {
    return fmt::format("its header runs past the end of the file ({} bytes): it is truncated",
                       bytes.size());
  }
  const auto header = bytes.subspan(kFixed, header_len);
  json j = json::parse(header.begin(), header.end(), nullptr, /*allow_exceptions=*/false);
  const auto it = j.is_object() ? j.find("payload_bytes") : j.end();
  if (!j.is_object() || it == j.end() || !it->is_number_unsigned()) {
    return "its SHA-256 checksum does not match, and its JSON header is not intact";
  }
  const uint64_t expected = kFixed + header_len + it->get<uint64_t>() + kChecksumBytes;
  if (bytes.size() < expected) {
    return fmt::format("it is {} bytes where {} were written: it is truncated", bytes.size(),
                       expected);
  }
  if (bytes.size() > expected) {
    return fmt::format("it is {} bytes where {} were written: bytes were added", bytes.size(),
                       expected);
  }
  return "its SHA-256 checksum does not match its contents (bytes were changed)";
}

}  // namespace

namespace {

// Header and payload of `body` (the file without its checksum, if any).
CheckpointHeader parse_body(std::span<const uint8_t> body, uint32_t version,
                            const std::string& source) {
  CheckpointHeader header;
  header.version = version;
  const uint32_t header_len = get_u32(body.data() + 12);
  if (header_len > kMaxHeaderBytes || header_len > body.size() - kFixed) {
    fail(source, fmt::format("header claims {} bytes but the file has {} after the magic; the "
                             "file is truncated",
                             header_len, body.size() - kFixed));
  }
  json j = json::parse(body.begin() + kFixed, body.begin() + kFixed + header_len, nullptr,
                       /*allow_exceptions=*/false);
  if (!j.is_object()) fail(source, "header is not valid JSON; the file is damaged");
  header.info = checkpoint_info_from_json(j, source);
  uint64_t payload_size = 0;
  if (auto it = j.find("payload_bytes"); it != j.end() && it->is_number_unsigned()) {
    payload_size = it->get<uint64_t>();
  } else {
    fail(source, "header does not give the payload size; the file is damaged");
  }
  header.payload_offset = kFixed + header_len;
  const size_t available = body.size() - header.payload_offset;
  if (payload_size != available) {
    fail(source, fmt::format("payload is {} bytes, header says {}; the file is {}", available,
                             payload_size, available < payload_size ? "truncated" : "damaged"));
  }
  header.payload_size = payload_size;
  return header;
}

// ": it is a safetensors file, ..." for the weights files people have (a
// safetensors file: an 8-byte header length, then its JSON; a torch.save
// ZIP archive or legacy pickle), which each tool takes with its own weights
// option (cifar-eval's --weights, cifar-train's --init-weights); a
// TorchScript archive (its constants.pkl entry), which none takes; "" for
// anything else.
std::string weights_file_hint(std::span<const uint8_t> bytes, const std::string& option) {
  const std::string give =
      option.empty() ? std::string("a weights file (--weights, or cifar-train's --init-weights)")
                     : option;
  const std::string_view text(reinterpret_cast<const char*>(bytes.data()), bytes.size());
  if (text.starts_with("PK\x03\x04") && text.find("/constants.pkl") != text.npos) {
    return fmt::format(
        ": it is a TorchScript archive (torch.jit.save), which no tool reads; in Python, "
        "torch.save(model.state_dict(), path) writes weights to give as {}",
        give);
  }
  const char* kind = nullptr;
  if (text.starts_with("PK\x03\x04")) {
    kind = "a ZIP archive, as Python's torch.save writes";
  } else if (is_legacy_torch_file(text)) {
    kind = "torch.save's legacy format (PyTorch before 1.6)";
  } else if (bytes.size() > 9 && bytes[8] == '{' &&
             (get_u32(bytes.data()) | uint64_t{get_u32(bytes.data() + 4)} << 32) <=
                 bytes.size() - 8) {
    return fmt::format(": it is a safetensors file, weights alone (a state_dict): give it as {}",
                       give);
  }
  if (kind == nullptr) return "";
  return fmt::format(": it is {}: if it holds weights alone (a state_dict), give it as {}", kind,
                     give);
}

}  // namespace

CheckpointHeader parse_checkpoint_header(std::span<const uint8_t> bytes, const std::string& source,
                                         const std::string& weights_option) {
  if (bytes.empty()) fail(source, "the file is empty (a write that never finished?)");
  if (bytes.size() < kFixed ||
      std::memcmp(bytes.data(), kCheckpointMagic, sizeof(kCheckpointMagic)) != 0) {
    fail(source, fmt::format("not a cifar-train checkpoint (no CIFARTRN magic at the start){}; "
                             "pass a file written by cifar-train --checkpoint",
                             weights_file_hint(bytes, weights_option)));
  }
  const uint32_t version = get_u32(bytes.data() + 8);
  if (version == kCheckpointFormatVersion) {
    if (bytes.size() < kFixed + kChecksumBytes) damaged(source, "it is truncated");
    if (!checksum_matches(bytes, version)) damaged(source, damage_hint(bytes));
    CheckpointHeader header =
        parse_body(bytes.first(bytes.size() - kChecksumBytes), version, source);
    header.verified = true;
    return header;
  }
  // Any other version field: a damaged current file, an old file, a newer
  // file, or bytes that only start like a checkpoint.
  if (checksum_matches(bytes, kCheckpointFormatVersion)) {
    damaged(source, fmt::format("its format version field reads {} where a version-{} file "
                                "(which the rest of it is) says {}",
                                version, kCheckpointFormatVersion, kCheckpointFormatVersion));
  }
  if (version == kUncheckedFormatVersion) return parse_body(bytes, version, source);
  if (version == kCheckpointFormatVersion + 1) {
    fail(source, fmt::format("format version {} is newer than this cifar-train reads ({}); "
                             "upgrade cifar-train (if no newer cifar-train wrote it, the file "
                             "is damaged)",
                             version, kCheckpointFormatVersion));
  }
  fail(source, fmt::format("format version {} is not one cifar-train writes (1 to {}): the file "
                           "is damaged or not a cifar-train checkpoint",
                           version, kCheckpointFormatVersion));
}

std::optional<CheckpointInfo> peek_checkpoint_info(const fs::path& path) {
  const std::string source = path.string();
  std::error_code ec;
  if (!fs::exists(fs::symlink_status(path, ec)) && !fs::exists(path, ec)) return std::nullopt;
  const std::string front = read_front(path, kFixed, "checkpoint");
  if (front.size() < kFixed ||
      std::memcmp(front.data(), kCheckpointMagic, sizeof(kCheckpointMagic)) != 0) {
    fail(source, "not a cifar-train checkpoint (no CIFARTRN magic at the start)");
  }
  const auto* p = reinterpret_cast<const uint8_t*>(front.data());
  const uint32_t version = get_u32(p + 8);
  const uint32_t header_len = get_u32(p + 12);
  if (version == 0 || version > kCheckpointFormatVersion || header_len > kMaxHeaderBytes) {
    fail(source, fmt::format("format version {} with a {}-byte header: the file is damaged or "
                             "not one this cifar-train reads",
                             version, header_len));
  }
  const std::string with_header = read_front(path, kFixed + header_len, "checkpoint");
  if (with_header.size() < kFixed + header_len) fail(source, "the header is truncated");
  const std::string header = with_header.substr(kFixed);
  json j = json::parse(header, nullptr, /*allow_exceptions=*/false);
  if (!j.is_object()) fail(source, "header is not valid JSON; the file is damaged");
  return checkpoint_info_from_json(j, source);
}

}  // namespace cifar
