// tensorboard.cpp: the hand-written protocol-buffer encoding and TFRecord
// framing. Field numbers come from TensorFlow's event.proto, summary.proto,
// tensor.proto, tensor_shape.proto and TensorBoard's plugins/hparams/
// api.proto and plugin_data.proto (and google/protobuf/struct.proto).
#include "cifar/formats/tensorboard.h"

#include <fmt/format.h>
#include <unistd.h>

#include <array>
#include <bit>
#include <chrono>
#include <stdexcept>

#include "cifar/formats/crc32c.h"

namespace cifar {
namespace {

// A protocol-buffer message being encoded: fields appended in any order.
class Message {
 public:
  Message& varint(int field, uint64_t v) {
    key(field, 0);
    raw_varint(v);
    return *this;
  }
  Message& f64(int field, double v) {  // wire type 1: 8 bytes little-endian
    key(field, 1);
    raw_little_endian(std::bit_cast<uint64_t>(v), 8);
    return *this;
  }
  Message& f32(int field, float v) {  // wire type 5: 4 bytes little-endian
    key(field, 5);
    raw_little_endian(std::bit_cast<uint32_t>(v), 4);
    return *this;
  }
  Message& bytes(int field, std::string_view v) {  // wire type 2: length, bytes
    key(field, 2);
    raw_varint(v.size());
    buf_.append(v);
    return *this;
  }
  Message& message(int field, const Message& m) { return bytes(field, m.buf_); }
  const std::string& str() const { return buf_; }

 private:
  void key(int field, int wire_type) {
    raw_varint((static_cast<uint64_t>(field) << 3) | static_cast<uint64_t>(wire_type));
  }
  void raw_little_endian(uint64_t bits, int bytes) {
    for (int i = 0; i < bytes; ++i) buf_.push_back(static_cast<char>((bits >> (8 * i)) & 0xFF));
  }
  void raw_varint(uint64_t v) {
    while (v >= 0x80) {
      buf_.push_back(static_cast<char>((v & 0x7F) | 0x80));
      v >>= 7;
    }
    buf_.push_back(static_cast<char>(v));
  }
  std::string buf_;
};

double now_seconds() {
  using namespace std::chrono;
  return duration<double>(system_clock::now().time_since_epoch()).count();
}

// Event { double wall_time = 1; int64 step = 2; string file_version = 3; Summary summary = 5; }
std::string event(int64_t step, const Message* summary, std::string_view file_version = {}) {
  Message e;
  e.f64(1, now_seconds()).varint(2, static_cast<uint64_t>(step));
  if (!file_version.empty()) e.bytes(3, file_version);
  if (summary != nullptr) e.message(5, *summary);
  return e.str();
}

// Summary { repeated Value value = 1; }
std::string summary_event(const Message& value, int64_t step) {
  Message s;
  s.message(1, value);
  return event(step, &s);
}

// SummaryMetadata { PluginData plugin_data = 1; } PluginData { plugin_name = 1; content = 2; }
Message plugin_metadata(std::string_view plugin, std::string_view content) {
  Message data;
  data.bytes(1, plugin);
  if (!content.empty()) data.bytes(2, content);
  Message meta;
  meta.message(1, data);
  return meta;
}

// google.protobuf.Value { number_value = 2; string_value = 3; bool_value = 4; }
Message struct_value(const std::variant<double, bool, std::string>& v) {
  Message m;
  if (const auto* d = std::get_if<double>(&v)) m.f64(2, *d);
  if (const auto* s = std::get_if<std::string>(&v)) m.bytes(3, *s);
  if (const auto* b = std::get_if<bool>(&v)) m.varint(4, *b ? 1 : 0);
  return m;
}

// An hparams plugin record: HParamsPluginData { version = 1; experiment = 2 |
// session_start_info = 3 | session_end_info = 4 } in an otherwise empty value.
Message hparams_value(std::string_view tag, int oneof_field, const Message& payload) {
  Message data;
  data.message(oneof_field, payload);  // version 0 is the default: not written
  Message v;
  v.bytes(1, tag).message(9, plugin_metadata("hparams", data.str()));
  return v;
}

std::string host_name() {
  std::array<char, 256> buf{};
  if (::gethostname(buf.data(), buf.size() - 1) != 0) return "localhost";
  return buf.data();
}

}  // namespace

TensorBoardWriter::TensorBoardWriter(const std::filesystem::path& dir) {
  std::error_code ec;
  std::filesystem::create_directories(dir, ec);
  if (ec) {
    throw std::runtime_error(
        fmt::format("cannot create the TensorBoard folder {}: {}", dir.string(), ec.message()));
  }
  const auto stem = fmt::format("{}{}.{}.{}", kEventFilePrefix, static_cast<int64_t>(now_seconds()),
                                host_name(), ::getpid());
  // A new file per writer: the first free counter (two writers in one second).
  for (int n = 0;; ++n) {
    path_ = dir / fmt::format("{}.{}", stem, n);
    if (!std::filesystem::exists(path_, ec)) break;
  }
  out_.open(path_, std::ios::binary | std::ios::app);
  if (!out_) {
    throw std::runtime_error(fmt::format(
        "cannot write the TensorBoard event file {} (check the folder's permissions, or "
        "turn TensorBoard logging off)",
        path_.string()));
  }
  write_event(event(0, nullptr, "brain.Event:2"));
  flush();
}

TensorBoardWriter::~TensorBoardWriter() {
  out_ << held_;
  out_.flush();
}

void TensorBoardWriter::write_event(const std::string& data) {
  // TFRecord: uint64 length, uint32 masked crc32c(length), data, uint32 masked crc32c(data).
  std::array<uint8_t, 8> len{};
  const uint64_t n = data.size();
  for (size_t i = 0; i < 8; ++i) len[i] = static_cast<uint8_t>((n >> (8 * i)) & 0xFF);
  auto le32 = [](uint32_t v) {
    std::array<char, 4> b{};
    for (size_t i = 0; i < 4; ++i) b[i] = static_cast<char>((v >> (8 * i)) & 0xFF);
    return b;
  };
  const auto len_crc = le32(masked_crc32c(len));
  const auto data_crc = le32(mask_crc32c(crc32c(std::string_view(data))));
  held_.append(reinterpret_cast<const char*>(len.data()), len.size());
  held_.append(len_crc.data(), 4);
  held_.append(data);
  held_.append(data_crc.data(), 4);
}

void TensorBoardWriter::scalar(std::string_view tag, double value, int64_t step) {
  // Summary.Value { string tag = 1; float simple_value = 2; }
  Message v;
  v.bytes(1, tag).f32(2, static_cast<float>(value));
  write_event(summary_event(v, step));
}

void TensorBoardWriter::image(std::string_view tag, std::span<const uint8_t> png, int height,
                              int width, int64_t step, int colorspace) {
  // Summary.Image { int32 height = 1; width = 2; colorspace = 3; bytes encoded_image_string = 4; }
  Message img;
  img.varint(1, static_cast<uint64_t>(height))
      .varint(2, static_cast<uint64_t>(width))
      .varint(3, static_cast<uint64_t>(colorspace))
      .bytes(4, std::string_view(reinterpret_cast<const char*>(png.data()), png.size()));
  Message v;  // Summary.Value { tag = 1; Image image = 4; }
  v.bytes(1, tag).message(4, img);
  write_event(summary_event(v, step));
}

void TensorBoardWriter::text(std::string_view tag, std::string_view text, int64_t step) {
  // The text plugin's form: a scalar DT_STRING tensor with plugin "text".
  // TensorProto { DataType dtype = 1 (DT_STRING = 7); TensorShapeProto
  // tensor_shape = 2 (empty: a scalar); repeated bytes string_val = 8; }
  Message tensor;
  tensor.varint(1, 7).message(2, Message{}).bytes(8, text);
  Message v;  // Summary.Value { tag = 1; TensorProto tensor = 8; SummaryMetadata metadata = 9; }
  v.bytes(1, tag).message(8, tensor).message(9, plugin_metadata("text", ""));
  write_event(summary_event(v, step));
}

void TensorBoardWriter::hparams_start(const std::vector<HParam>& hparams,
                                      const std::vector<std::string>& metric_tags) {
  // Experiment { repeated HParamInfo hparam_infos = 4; repeated MetricInfo metric_infos = 5; }
  // HParamInfo { string name = 1; DataType type = 4 (STRING 1, BOOL 2, FLOAT64 3); }
  // MetricInfo { MetricName name = 1; } MetricName { string group = 1; string tag = 2; }
  Message experiment;
  for (const auto& h : hparams) {
    const int type = std::holds_alternative<std::string>(h.value) ? 1
                     : std::holds_alternative<bool>(h.value)      ? 2
                                                                  : 3;
    Message info;
    info.bytes(1, h.name).varint(4, static_cast<uint64_t>(type));
    experiment.message(4, info);
  }
  for (const auto& tag : metric_tags) {
    Message name;
    name.bytes(2, tag);
    Message info;
    info.message(1, name);
    experiment.message(5, info);
  }
  // SessionStartInfo { map<string, google.protobuf.Value> hparams = 1; double start_time_secs = 5;
  // }
  Message start;
  for (const auto& h : hparams) {
    Message entry;  // a map entry: { key = 1; value = 2; }
    entry.bytes(1, h.name).message(2, struct_value(h.value));
    start.message(1, entry);
  }
  start.f64(5, now_seconds());
  write_event(summary_event(hparams_value("_hparams_/experiment", 2, experiment), 0));
  write_event(summary_event(hparams_value("_hparams_/session_start_info", 3, start), 0));
}

void TensorBoardWriter::hparams_end(bool success) {
  // SessionEndInfo { Status status = 1 (SUCCESS 1, FAILURE 2); double end_time_secs = 2; }
  Message end;
  end.varint(1, success ? 1 : 2).f64(2, now_seconds());
  write_event(summary_event(hparams_value("_hparams_/session_end_info", 4, end), 0));
}

void TensorBoardWriter::purge_from(int64_t step) {
  // Event { session_log = 7 } SessionLog { SessionStatus status = 1 (START = 1); }
  Message session_log;
  session_log.varint(1, 1);
  Message e;
  e.f64(1, now_seconds()).varint(2, static_cast<uint64_t>(step)).message(7, session_log);
  write_event(e.str());
}

void TensorBoardWriter::flush() {
  out_ << held_;
  held_.clear();
  out_.flush();
  if (!out_) {
    throw std::runtime_error(
        fmt::format("cannot write the TensorBoard event file {} (disk full?)", path_.string()));
  }
}

}  // namespace cifar
