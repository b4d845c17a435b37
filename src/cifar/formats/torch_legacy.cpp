// torch_legacy.cpp: torch.save's legacy layout (see torch_legacy.h).
#include "cifar/formats/torch_legacy.h"

#include <fmt/format.h>

#include <cstring>
#include <map>
#include <stdexcept>

namespace cifar {
namespace {
using pickle::ValuePtr;

// PROTO 2, LONG1 of 10 bytes (0x1950a86a20f9469cfc6c, little-endian), STOP:
// the first pickle of every legacy file (torch.save pickles at protocol 2 by
// default; its pickle_protocol=3 gives PROTO 3 and the same bytes after it,
// which torch.load reads too: 4 and 5 frame them, and torch.load's
// weights_only reader refuses them).
constexpr std::string_view kMagicPickle(
    "\x80\x02\x8a\x0a\x6c\xfc\x9c\x46\xf9\x20\x6a\xa8\x50\x19\x2e", 15);
constexpr size_t kProtocolByte = 1;
constexpr int64_t kProtocolVersion = 1001;

struct Storage {
  torch::ScalarType dtype = torch::kFloat;
  int64_t numel = 0;
  size_t offset = 0;  // of its first byte in the file
};

// The pickles after the magic number, one at a time.
class LegacyReader {
 public:
  LegacyReader(std::string_view bytes, const pickle::Limits& limits)
      : bytes_(bytes), limits_(limits) {}

  ValuePtr next(const pickle::StorageLoader& load) {
    size_t end = 0;
    ValuePtr value = pickle::unpickle(bytes_.substr(pos_), load, limits_, &end);
    pos_ += end;
    return value;
  }
  // An int64 from the bytes after the pickles.
  int64_t int64(const std::string& what) {
    if (bytes_.size() - pos_ < 8) throw std::runtime_error("it is truncated (" + what + ")");
    int64_t v = 0;
    std::memcpy(&v, bytes_.data() + pos_, 8);  // little-endian: sys_info said so
    pos_ += 8;
    return v;
  }
  void skip(uint64_t n, const std::string& what) {
    if (bytes_.size() - pos_ < n) throw std::runtime_error("it is truncated (" + what + ")");
    pos_ += n;
  }
  size_t pos() const { return pos_; }
  void seek(size_t pos) { pos_ = pos; }
  const char* at(size_t offset) const { return bytes_.data() + offset; }

 private:
  std::string_view bytes_;
  const pickle::Limits& limits_;
  size_t pos_ = kMagicPickle.size();
};

torch::Tensor no_storage(const std::string&, torch::ScalarType, int64_t) {
  throw std::runtime_error("a storage outside the saved object");
}

void check_header(LegacyReader& in) {
  const ValuePtr version = in.next(no_storage);
  const auto* v = std::get_if<int64_t>(&version->content);
  if (v == nullptr || *v != kProtocolVersion) {
    throw std::runtime_error(
        "its legacy protocol version is not 1001; save it again with torch.save");
  }
  const ValuePtr info = in.next(no_storage);
  const auto* d = std::get_if<pickle::Dict>(&info->content);
  if (d == nullptr) throw std::runtime_error("its sys_info is not a dict");
  for (const auto& [key, value] : d->items) {
    const auto* name = std::get_if<std::string>(&key->content);
    const auto* little = std::get_if<bool>(&value->content);
    if (name != nullptr && *name == "little_endian" && little != nullptr && !*little) {
      throw std::runtime_error(
          "it was saved on a big-endian machine, which this tool does not read");
    }
  }
}

// Where each storage's bytes are: the key list, then numel and the bytes per key.
void locate_storages(LegacyReader& in, std::map<std::string, Storage>& storages) {
  const ValuePtr keys = in.next(no_storage);
  const auto* list = std::get_if<pickle::List>(&keys->content);
  if (list == nullptr) throw std::runtime_error("its storage key list is not a list");
  for (const ValuePtr& item : list->items) {
    const auto* key = std::get_if<std::string>(&item->content);
    if (key == nullptr) throw std::runtime_error("its storage key list holds a non-string");
    const auto it = storages.find(*key);
    if (it == storages.end()) {
      throw std::runtime_error(fmt::format("it lists storage {}, which no tensor uses", *key));
    }
    Storage& s = it->second;
    const int64_t numel = in.int64("storage " + *key);
    if (numel != s.numel) {
      throw std::runtime_error(
          fmt::format("storage {} holds {} elements, {} expected", *key, numel, s.numel));
    }
    s.offset = in.pos();
    in.skip(static_cast<uint64_t>(numel) * c10::elementSize(s.dtype), "storage " + *key);
  }
}

}  // namespace

bool is_legacy_torch_file(std::string_view bytes) {
  if (bytes.size() < kMagicPickle.size()) return false;
  const char protocol = bytes[kProtocolByte];
  return (protocol == '\x02' || protocol == '\x03') &&
         bytes.substr(0, kProtocolByte) == kMagicPickle.substr(0, kProtocolByte) &&
         bytes.substr(kProtocolByte + 1, kMagicPickle.size() - kProtocolByte - 1) ==
             kMagicPickle.substr(kProtocolByte + 1);
}

ValuePtr unpickle_legacy_torch(std::string_view bytes, const pickle::Limits& limits) {
  if (!is_legacy_torch_file(bytes)) throw std::runtime_error("it is not a legacy torch.save file");
  LegacyReader in(bytes, limits);
  check_header(in);
  // First pass: the object's storages, their types and sizes, and where it ends.
  std::map<std::string, Storage> storages;
  const size_t object_at = in.pos();
  in.next([&](const std::string& key, torch::ScalarType dtype, int64_t numel) {
    storages[key] = {.dtype = dtype, .numel = numel};
    return torch::empty({numel}, torch::TensorOptions().dtype(dtype));
  });
  locate_storages(in, storages);
  // Second pass: the object with its storages' bytes.
  in.seek(object_at);
  return in.next([&](const std::string& key, torch::ScalarType dtype, int64_t numel) {
    const Storage& s = storages.at(key);
    if (s.offset == 0) throw std::runtime_error(fmt::format("storage {} is not in the file", key));
    auto data = torch::empty({numel}, torch::TensorOptions().dtype(dtype));
    const size_t size = static_cast<size_t>(numel) * c10::elementSize(dtype);
    if (numel > 0) std::memcpy(data.data_ptr(), in.at(s.offset), size);
    return data;
  });
}

}  // namespace cifar
