// storage_locations.cpp: see storage_locations.h.
//
// The pickles are walked opcode by opcode (protocol 2, as LibTorch's Pickler
// writes it). A storage is pickled as the persistent id
//   MARK 'storage' <dtype>Storage <key> <location> <numel> TUPLE BINPERSID
// where each string is either written out (BINUNICODE, then memoised with
// BINPUT) or fetched from the memo (BINGET) when it came before: the walk
// keeps the memo's strings and, per open MARK, the values pushed since, so the
// fourth value of such a tuple is the location, wherever its bytes are.
#include "io/storage_locations.h"

#include <caffe2/serialize/inline_container.h>
#include <fmt/format.h>

#include <cstring>
#include <map>
#include <nlohmann/json.hpp>
#include <optional>
#include <sstream>
#include <stdexcept>

#include "cifar/formats/checksum.h"
#include "cifar/formats/pickle_opcodes.h"
#include "cifar/io/checkpoint.h"

namespace cifar::test {
namespace {
using pickle::Op;

struct Span {
  size_t begin = 0, end = 0;
  std::optional<std::string> text;  // the string it pushes, when it pushes one
};

uint64_t little_endian(const std::string& s, size_t at, size_t bytes) {
  uint64_t v = 0;
  for (size_t b = 0; b < bytes; ++b) v |= uint64_t{static_cast<uint8_t>(s[at + b])} << (8 * b);
  return v;
}

class PickleWalk {
 public:
  explicit PickleWalk(const std::string& p) : p_(p) {}

  // The byte ranges of every storage's location, in order.
  std::vector<Span> locations() {
    for (;;) {
      const size_t begin = i_;
      const auto op = static_cast<Op>(static_cast<uint8_t>(take(1)[0]));
      if (op == Op::STOP) return found_;
      step(op, begin);
    }
  }

 private:
  std::string take(size_t n) {
    if (i_ + n > p_.size()) throw std::runtime_error("the pickle ends inside an opcode");
    std::string s = p_.substr(i_, n);
    i_ += n;
    return s;
  }
  uint64_t number(size_t bytes) { return little_endian(take(bytes), 0, bytes); }
  void push(size_t begin, std::optional<std::string> text) {
    last_ = text;
    if (!frames_.empty()) frames_.back().push_back({begin, i_, std::move(text)});
  }
  std::vector<Span> close_mark() {
    if (frames_.empty()) throw std::runtime_error("the pickle closes a MARK it never opened");
    std::vector<Span> items = std::move(frames_.back());
    frames_.pop_back();
    return items;
  }
  void tuple(size_t begin) {
    const std::vector<Span> items = close_mark();
    const bool persistent = i_ < p_.size() && static_cast<Op>(p_[i_]) == Op::BINPERSID;
    if (persistent && items.size() == 5 && items[0].text == "storage" && items[3].text) {
      found_.push_back(items[3]);
    }
    push(begin, std::nullopt);
  }
  void memo_get(size_t begin, uint64_t index) {
    const auto it = memo_.find(index);
    push(begin, it == memo_.end() ? std::nullopt : std::optional<std::string>(it->second));
  }
  void memo_put(uint64_t index) {
    if (last_) {
      memo_[index] = *last_;
    } else {
      memo_.erase(index);
    }
  }

  // The bytes of `op`'s argument after the opcode (GLOBAL: its two lines).
  std::string argument(Op op) {
    switch (op) {
      case Op::PROTO:
      case Op::BININT1:
      case Op::BINPUT:
      case Op::BINGET:
        return take(1);
      case Op::BININT2:
        return take(2);
      case Op::BININT:
      case Op::LONG_BINPUT:
      case Op::LONG_BINGET:
        return take(4);
      case Op::BINFLOAT:
        return take(8);
      case Op::LONG1:
      case Op::SHORT_BINUNICODE:
      case Op::SHORT_BINBYTES:
      case Op::SHORT_BINSTRING:
        return take(number(1));
      case Op::BINUNICODE:
      case Op::BINBYTES:
        return take(number(4));
      case Op::BINUNICODE8:
      case Op::BINBYTES8:
        return take(number(8));
      case Op::GLOBAL: {
        std::string lines;
        for (int line = 0; line < 2;) line += (lines += take(1)).back() == '\n' ? 1 : 0;
        return lines;
      }
      default:
        return {};
    }
  }

  void step(Op op, size_t begin) {
    const std::string arg = argument(op);
    switch (op) {
      case Op::MARK:
        frames_.emplace_back();
        return;
      case Op::TUPLE:
        tuple(begin);
        return;
      case Op::LIST:
      case Op::DICT:
        close_mark();
        push(begin, std::nullopt);
        return;
      case Op::APPENDS:
      case Op::SETITEMS:
      case Op::POP_MARK:
        close_mark();
        last_.reset();
        return;
      case Op::BINUNICODE:
      case Op::BINBYTES:
      case Op::SHORT_BINUNICODE:
      case Op::SHORT_BINBYTES:
      case Op::SHORT_BINSTRING:
      case Op::BINUNICODE8:
      case Op::BINBYTES8:
        push(begin, arg);
        return;
      case Op::BINPUT:
      case Op::LONG_BINPUT:
        memo_put(little_endian(arg, 0, arg.size()));
        return;
      case Op::BINGET:
      case Op::LONG_BINGET:
        memo_get(begin, little_endian(arg, 0, arg.size()));
        return;
      case Op::PROTO:
        return;
      case Op::GLOBAL:
      case Op::BININT1:
      case Op::BININT2:
      case Op::BININT:
      case Op::BINFLOAT:
      case Op::LONG1:
      case Op::NONE:
      case Op::NEWTRUE:
      case Op::NEWFALSE:
      case Op::EMPTY_TUPLE:
      case Op::EMPTY_LIST:
      case Op::EMPTY_DICT:
        push(begin, std::nullopt);
        return;
      case Op::TUPLE1:
      case Op::TUPLE2:
      case Op::TUPLE3:
      case Op::REDUCE:
      case Op::NEWOBJ:
      case Op::BUILD:
      case Op::BINPERSID:
      case Op::APPEND:
      case Op::SETITEM:
      case Op::POP:
      case Op::DUP:
        last_.reset();  // combines what is on the stack: no string of its own
        return;
      default:
        throw std::runtime_error(
            fmt::format("opcode 0x{:02x} at byte {} is not one LibTorch's pickler writes",
                        static_cast<unsigned>(op), begin));
    }
  }

  const std::string& p_;
  size_t i_ = 0;
  std::map<uint64_t, std::string> memo_;
  std::optional<std::string> last_;        // the string just pushed, for BINPUT
  std::vector<std::vector<Span>> frames_;  // the values pushed since each open MARK
  std::vector<Span> found_;
};

std::string binunicode(const std::string& text) {
  std::string out(1, static_cast<char>(Op::BINUNICODE));
  for (size_t b = 0; b < 4; ++b) out.push_back(static_cast<char>((text.size() >> (8 * b)) & 0xff));
  return out + text;
}

// The pickle with its locations replaced, the next one taken from
// locations[*next % size].
std::string rewrite_pickle(const std::string& p, const std::vector<std::string>& locations,
                           size_t* next) {
  std::string out;
  size_t copied = 0;
  for (const Span& at : PickleWalk(p).locations()) {
    out.append(p, copied, at.begin - copied);
    out += binunicode(locations[(*next)++ % locations.size()]);
    copied = at.end;
  }
  return out + p.substr(copied);
}

bool is_pickle(const std::string& name) {
  return name.size() > 4 && name.compare(name.size() - 4, 4, ".pkl") == 0;
}

// Calls visit(name, bytes) for every record of the archive, in its order.
template <class Visit>
void for_each_record(const std::string& archive, Visit visit) {
  std::istringstream in(archive);
  caffe2::serialize::PyTorchStreamReader reader(&in);
  for (const std::string& name : reader.getAllRecords()) {
    auto [data, size] = reader.getRecord(name);
    visit(reader, name, std::string(static_cast<const char*>(data.get()), size));
  }
}

}  // namespace

std::vector<std::string> storage_locations(const std::string& archive) {
  std::vector<std::string> out;
  for_each_record(archive, [&](auto&, const std::string& name, const std::string& bytes) {
    if (!is_pickle(name)) return;
    for (const Span& at : PickleWalk(bytes).locations()) out.push_back(*at.text);
  });
  return out;
}

std::string relocate_archive(const std::string& archive,
                             const std::vector<std::string>& locations) {
  if (locations.empty()) throw std::runtime_error("relocate_archive: no location given");
  std::string out;
  caffe2::serialize::PyTorchStreamWriter writer([&out](const void* data, size_t size) {
    out.append(static_cast<const char*>(data), size);
    return size;
  });
  size_t next = 0;
  for_each_record(archive, [&](auto& reader, const std::string& name, std::string bytes) {
    writer.setMinVersion(reader.version());
    // Written by the writer itself when it ends the file.
    if (name == "version" || name == ".data/version" || name == ".data/serialization_id") return;
    if (writer.getAllWrittenRecords().count(name) != 0) return;
    if (is_pickle(name)) bytes = rewrite_pickle(bytes, locations, &next);
    writer.writeRecord(name, bytes.data(), bytes.size());
  });
  writer.writeEndOfFile();
  if (next == 0) throw std::runtime_error("relocate_archive: the archive holds no storage");
  return out;
}

std::string checkpoint_payload(const std::string& checkpoint) {
  const auto* bytes = reinterpret_cast<const uint8_t*>(checkpoint.data());
  const CheckpointHeader header =
      parse_checkpoint_header(std::span(bytes, checkpoint.size()), "checkpoint_payload");
  return checkpoint.substr(header.payload_offset, header.payload_size);
}

std::string relocate_checkpoint(const std::string& checkpoint,
                                const std::vector<std::string>& locations) {
  const auto* bytes = reinterpret_cast<const uint8_t*>(checkpoint.data());
  const CheckpointHeader header =
      parse_checkpoint_header(std::span(bytes, checkpoint.size()), "relocate_checkpoint");
  const std::string payload =
      relocate_archive(checkpoint.substr(header.payload_offset, header.payload_size), locations);
  constexpr size_t kFront = sizeof(kCheckpointMagic) + 8;  // magic, version, header length
  nlohmann::json j =
      nlohmann::json::parse(checkpoint.substr(kFront, header.payload_offset - kFront));
  j["payload_bytes"] = static_cast<uint64_t>(payload.size());
  const std::string json = j.dump(1);
  std::string out = checkpoint.substr(0, kFront - 4);
  for (size_t b = 0; b < 4; ++b) out.push_back(static_cast<char>((json.size() >> (8 * b)) & 0xff));
  out += json + payload;
  const Sha256Digest d =
      sha256(std::span(reinterpret_cast<const uint8_t*>(out.data()), out.size()));
  return out.append(reinterpret_cast<const char*>(d.data()), d.size());
}

}  // namespace cifar::test
