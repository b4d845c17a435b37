// tensorboard_trim.cpp: reads TFRecord frames and each Event's step (field 2)
// without a protobuf library, keeping the frames' bytes as they are.
#include "cifar/formats/tensorboard_trim.h"

#include <fmt/format.h>

#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "cifar/core/file_io.h"
#include "cifar/formats/crc32c.h"

namespace cifar {
namespace {

constexpr uint64_t kMaxEventFile = uint64_t{1} << 32;  // 4 GiB: far past any run's

uint64_t little_endian(std::string_view bytes) {
  uint64_t v = 0;
  for (size_t i = bytes.size(); i-- > 0;) v = (v << 8) | static_cast<uint8_t>(bytes[i]);
  return v;
}

std::optional<uint64_t> varint(std::string_view data, size_t& at) {
  uint64_t v = 0;
  for (int shift = 0; at < data.size() && shift < 64; shift += 7) {
    const auto byte = static_cast<uint8_t>(data[at++]);
    v |= static_cast<uint64_t>(byte & 0x7F) << shift;
    if ((byte & 0x80) == 0) return v;
  }
  return std::nullopt;
}

// An Event message's step (0 when absent); nullopt for bytes that are no
// protocol-buffer message.
std::optional<int64_t> event_step(std::string_view event) {
  int64_t step = 0;
  for (size_t at = 0; at < event.size();) {
    const auto key = varint(event, at);
    if (!key) return std::nullopt;
    const uint64_t wire = *key & 7;
    if (wire == 0) {
      const auto v = varint(event, at);
      if (!v) return std::nullopt;
      if ((*key >> 3) == 2) step = static_cast<int64_t>(*v);
    } else if (wire == 1 || wire == 5) {
      at += wire == 1 ? 8 : 4;
    } else if (wire == 2) {
      const auto n = varint(event, at);
      if (!n || *n > event.size() - at) return std::nullopt;
      at += *n;
    } else {
      return std::nullopt;
    }
  }
  return step;
}

}  // namespace

int64_t drop_events_after(const std::filesystem::path& file, int64_t last_step) {
  const std::string data = read_file(file, kMaxEventFile, "the TensorBoard event file");
  std::vector<std::span<const char>> kept;
  int64_t dropped = 0;
  size_t at = 0;
  // A frame: uint64 length, uint32 masked CRC of the length, the data,
  // uint32 masked CRC of the data.
  while (data.size() - at >= 12) {
    const std::string_view head(data.data() + at, 8);
    const uint64_t n = little_endian(head);
    const bool whole = data.size() - at >= 16 && n <= data.size() - at - 16 &&
                       little_endian({data.data() + at + 8, 4}) == mask_crc32c(crc32c(head)) &&
                       little_endian({data.data() + at + 12 + n, 4}) ==
                           mask_crc32c(crc32c(std::string_view(data.data() + at + 12, n)));
    const auto step = whole ? event_step({data.data() + at + 12, n}) : std::nullopt;
    if (!step) break;
    if (*step <= last_step) kept.emplace_back(data.data() + at, n + 16);
    if (*step > last_step) ++dropped;
    at += n + 16;
  }
  if (at < data.size()) ++dropped;  // a torn or damaged record, and all after it
  if (dropped > 0) write_file_atomically(file, kept);
  return dropped;
}

}  // namespace cifar
