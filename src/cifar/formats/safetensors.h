// safetensors.h: the safetensors file format (Hugging Face), read and written.
//
// Layout: an 8-byte little-endian header length N, N bytes of JSON
//   {"name": {"dtype": "F32", "shape": [6, 3, 5, 5], "data_offsets": [begin, end]}, ...,
//    "__metadata__": {"key": "string value", ...}}
// then the raw little-endian tensor bytes; offsets are relative to the end of
// the header. No C++ library for it is packaged in Debian, so this file is the
// whole implementation; tests check it against the PyPI `safetensors` package.
//
// Reading checks everything before any tensor is built: the header length
// against the file size and a cap, that the JSON is an object of well-formed
// entries with known dtypes, that each entry's byte count is its dtype size
// times its shape, and that the entries tile the data area exactly (in range,
// no overlap, no holes). Every failure is a std::runtime_error naming the file
// and the problem.
#pragma once

#include <torch/torch.h>

#include <cstdint>
#include <filesystem>
#include <map>
#include <span>
#include <string>
#include <vector>

#include "cifar/core/types.h"

namespace cifar {

// Name -> tensor, sorted by name (the order does not matter to either format).

// A header larger than this is refused (the reference implementation's cap).
inline constexpr uint64_t kMaxSafetensorsHeaderBytes = 100'000'000;

struct SafetensorsEntry {
  std::string name;
  torch::ScalarType dtype = torch::kFloat32;
  std::vector<int64_t> shape;
  uint64_t begin = 0;  // byte offsets into the data area, [begin, end)
  uint64_t end = 0;
};

struct SafetensorsHeader {
  std::vector<SafetensorsEntry> entries;  // sorted by begin
  StringMap metadata;                     // "__metadata__", string -> string
  uint64_t data_offset = 0;               // 8 + header length
};

struct SafetensorsFile {
  TensorMap tensors;  // contiguous CPU tensors that own their memory
  StringMap metadata;
};

// Validates the header of a whole file held in memory (see above); `source`
// names the file in error messages.
SafetensorsHeader parse_safetensors_header(std::span<const uint8_t> bytes,
                                           const std::string& source);

SafetensorsFile decode_safetensors(std::span<const uint8_t> bytes, const std::string& source);
SafetensorsFile read_safetensors(const std::filesystem::path& path);

// Serialises tensors (moved to the CPU and made contiguous; floating point as
// float32, integers and bool as they are) and string metadata.
std::string encode_safetensors(const TensorMap& tensors, const StringMap& metadata);

// Writes atomically (temporary file, fsync, rename).
void write_safetensors(const std::filesystem::path& path, const TensorMap& tensors,
                       const StringMap& metadata);

}  // namespace cifar
