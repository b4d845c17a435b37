// safetensors.cpp: see safetensors.h.
#include "cifar/formats/safetensors.h"

#include <fmt/format.h>

#include <algorithm>
#include <bit>
#include <cstring>
#include <limits>
#include <nlohmann/json.hpp>
#include <stdexcept>

#include "cifar/core/file_io.h"  // write_file_atomically
#include "cifar/core/file_io.h"

namespace cifar {
using nlohmann::json;

namespace {

static_assert(std::endian::native == std::endian::little, "safetensors data is little-endian");

struct DtypeName {
  const char* name;
  torch::ScalarType type;
};
constexpr DtypeName kDtypes[] = {
    {"F32", torch::kFloat32},   {"F64", torch::kFloat64}, {"F16", torch::kFloat16},
    {"BF16", torch::kBFloat16}, {"I64", torch::kInt64},   {"I32", torch::kInt32},
    {"I16", torch::kInt16},     {"I8", torch::kInt8},     {"U8", torch::kUInt8},
    {"BOOL", torch::kBool},
};

[[noreturn]] void fail_header(const std::string& source, const std::string& problem) {
  throw std::runtime_error(fmt::format("safetensors file {}: {}", source, problem));
}

const char* dtype_name(torch::ScalarType type) {
  for (const auto& d : kDtypes) {
    if (d.type == type) return d.name;
  }
  throw std::runtime_error(fmt::format("safetensors: cannot store dtype {}", c10::toString(type)));
}

SafetensorsEntry parse_entry(const std::string& name, const json& j, const std::string& source) {
  if (!j.is_object()) fail_header(source, fmt::format("entry '{}' is not a JSON object", name));
  SafetensorsEntry e;
  e.name = name;
  const auto dtype = j.find("dtype");
  if (dtype == j.end() || !dtype->is_string()) {
    fail_header(source, fmt::format("entry '{}' has no dtype string", name));
  }
  const auto known = std::find_if(std::begin(kDtypes), std::end(kDtypes), [&](const auto& d) {
    return dtype->get_ref<const std::string&>() == d.name;
  });
  if (known == std::end(kDtypes)) {
    fail_header(source,
                fmt::format("entry '{}' has dtype '{}', which this tool does not read (F32, F64, "
                            "F16, BF16, I64, I32, I16, I8, U8, BOOL)",
                            name, dtype->get<std::string>()));
  }
  e.dtype = known->type;
  const auto shape = j.find("shape");
  if (shape == j.end() || !shape->is_array() || shape->size() > 16) {
    fail_header(source, fmt::format("entry '{}' has no shape list (of at most 16 sizes)", name));
  }
  uint64_t numel = 1;
  uint64_t span = 1;  // the sizes' product with zeros as ones: what LibTorch's strides reach
  for (const auto& d : *shape) {
    if (!d.is_number_unsigned() || d.get<uint64_t>() > (uint64_t{1} << 40)) {
      fail_header(source, fmt::format("entry '{}' has a bad size {} in its shape", name, d.dump()));
    }
    const uint64_t size = d.get<uint64_t>();
    if (std::max<uint64_t>(size, 1) > std::numeric_limits<uint64_t>::max() / 16 / span) {
      fail_header(source, fmt::format("entry '{}' has a shape too large to hold ({}), even with no "
                                      "elements: the file is damaged",
                                      name, shape->dump()));
    }
    span *= std::max<uint64_t>(size, 1);
    numel *= size;
    e.shape.push_back(static_cast<int64_t>(size));
  }
  const auto offsets = j.find("data_offsets");
  if (offsets == j.end() || !offsets->is_array() || offsets->size() != 2 ||
      !(*offsets)[0].is_number_unsigned() || !(*offsets)[1].is_number_unsigned()) {
    fail_header(source, fmt::format("entry '{}' has no data_offsets [begin, end]", name));
  }
  e.begin = (*offsets)[0].get<uint64_t>();
  e.end = (*offsets)[1].get<uint64_t>();
  if (e.end < e.begin) {
    fail_header(source,
                fmt::format("entry '{}' ends ({}) before it begins ({})", name, e.end, e.begin));
  }
  const uint64_t want = numel * c10::elementSize(e.dtype);
  if (e.end - e.begin != want) {
    fail_header(source, fmt::format("entry '{}' holds {} bytes but its dtype and shape need {}",
                                    name, e.end - e.begin, want));
  }
  return e;
}

}  // namespace

SafetensorsHeader parse_safetensors_header(std::span<const uint8_t> bytes,
                                           const std::string& source) {
  if (bytes.size() < 8) {
    fail_header(source,
                fmt::format("{} bytes is too short for the 8-byte header length; the file is "
                            "truncated or not safetensors",
                            bytes.size()));
  }
  uint64_t header_len = 0;
  for (size_t i = 8; i-- > 0;) header_len = header_len << 8 | bytes[i];
  if (header_len > kMaxSafetensorsHeaderBytes) {
    fail_header(source,
                fmt::format("header length {} exceeds the {} bytes allowed; not a safetensors "
                            "file",
                            header_len, kMaxSafetensorsHeaderBytes));
  }
  if (header_len > bytes.size() - 8) {
    fail_header(source,
                fmt::format("header length {} is larger than the {} bytes that follow it; the "
                            "file is truncated",
                            header_len, bytes.size() - 8));
  }
  const auto* begin = bytes.data() + 8;
  json j = json::parse(begin, begin + header_len, nullptr, /*allow_exceptions=*/false);
  if (!j.is_object()) fail_header(source, "header is not a JSON object; the file is damaged");

  SafetensorsHeader header;
  header.data_offset = 8 + header_len;
  for (const auto& [key, value] : j.items()) {
    if (key == "__metadata__") {
      if (!value.is_object()) fail_header(source, "__metadata__ is not a JSON object");
      for (const auto& [k, v] : value.items()) {
        if (!v.is_string())
          fail_header(source, fmt::format("__metadata__ '{}' is not a string", k));
        header.metadata[k] = v.get<std::string>();
      }
      continue;
    }
    header.entries.push_back(parse_entry(key, value, source));
  }
  std::sort(header.entries.begin(), header.entries.end(), [](const auto& a, const auto& b) {
    return a.begin < b.begin || (a.begin == b.begin && a.end < b.end);
  });
  const uint64_t data_size = bytes.size() - header.data_offset;
  uint64_t expected = 0;
  for (const auto& e : header.entries) {
    if (e.end > data_size) {
      fail_header(source,
                  fmt::format("entry '{}' lies at bytes [{}, {}) but the data area holds {}; the "
                              "file is truncated or its header lies",
                              e.name, e.begin, e.end, data_size));
    }
    if (e.begin < expected) {
      fail_header(source, fmt::format("entry '{}' at [{}, {}) overlaps the entry before it", e.name,
                                      e.begin, e.end));
    }
    if (e.begin > expected) {
      fail_header(source, fmt::format("entry '{}' begins at {} leaving a gap after byte {}", e.name,
                                      e.begin, expected));
    }
    expected = e.end;
  }
  if (expected != data_size) {
    fail_header(source, fmt::format("the entries cover {} bytes of a {}-byte data area", expected,
                                    data_size));
  }
  return header;
}

SafetensorsFile decode_safetensors(std::span<const uint8_t> bytes, const std::string& source) {
  const auto header = parse_safetensors_header(bytes, source);
  SafetensorsFile file;
  file.metadata = header.metadata;
  for (const auto& e : header.entries) {
    auto t = torch::empty(e.shape, torch::TensorOptions().dtype(e.dtype));
    if (e.end > e.begin) {
      std::memcpy(t.data_ptr(), bytes.data() + header.data_offset + e.begin, e.end - e.begin);
    }
    file.tensors.emplace(e.name, std::move(t));
  }
  return file;
}

SafetensorsFile read_safetensors(const std::filesystem::path& path) {
  const std::string bytes = read_file(path, uint64_t{1} << 34, "safetensors file");
  return decode_safetensors(std::span(reinterpret_cast<const uint8_t*>(bytes.data()), bytes.size()),
                            path.string());
}

std::string encode_safetensors(const TensorMap& tensors, const StringMap& metadata) {
  json header = json::object();
  if (!metadata.empty()) header["__metadata__"] = metadata;
  std::vector<torch::Tensor> data;
  uint64_t offset = 0;
  for (const auto& [name, tensor] : tensors) {
    auto t = tensor.detach().to(torch::kCPU);
    if (t.is_floating_point()) t = t.to(torch::kFloat32);
    t = t.contiguous();
    const auto n = static_cast<uint64_t>(t.numel() * t.element_size());
    header[name] = {{"dtype", dtype_name(t.scalar_type())},
                    {"shape", t.sizes().vec()},
                    {"data_offsets", {offset, offset + n}}};
    offset += n;
    data.push_back(std::move(t));
  }
  std::string text = header.dump();
  text.append((8 - text.size() % 8) % 8, ' ');  // keeps the data 8-byte aligned
  std::string out;
  out.reserve(8 + text.size() + offset);
  for (int i = 0; i < 8; ++i) out.push_back(static_cast<char>((text.size() >> (8 * i)) & 0xff));
  out += text;
  for (const auto& t : data) {
    out.append(static_cast<const char*>(t.data_ptr()),
               static_cast<size_t>(t.numel() * t.element_size()));
  }
  return out;
}

void write_safetensors(const std::filesystem::path& path, const TensorMap& tensors,
                       const StringMap& metadata) {
  write_file_atomically(path, encode_safetensors(tensors, metadata));
}

}  // namespace cifar
