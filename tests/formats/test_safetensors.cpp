// Tests of the safetensors reader and writer (the Python package checks the
// format itself in tests/cli/interop_*.sh).
#include <catch2/catch.hpp>
#include <nlohmann/json.hpp>

#include "cifar/formats/safetensors.h"
#include "test_helpers.h"

using namespace cifar;
using nlohmann::json;

namespace {

std::span<const uint8_t> bytes_of(const std::string& s) {
  return {reinterpret_cast<const uint8_t*>(s.data()), s.size()};
}

// A file with the given header JSON and `data_bytes` zero bytes of data.
std::string file_with_header(const json& header, size_t data_bytes) {
  const std::string text = header.dump();
  std::string out;
  for (int i = 0; i < 8; ++i) out.push_back(static_cast<char>((text.size() >> (8 * i)) & 0xff));
  return out + text + std::string(data_bytes, '\0');
}

json entry(const char* dtype, std::vector<int64_t> shape, uint64_t begin, uint64_t end) {
  return {{"dtype", dtype}, {"shape", shape}, {"data_offsets", {begin, end}}};
}

}  // namespace

TEST_CASE("safetensors round trip keeps names, values, dtypes and metadata", "[safetensors]") {
  TensorMap tensors{{"conv1.weight", torch::randn({6, 3, 5, 5})},
                    {"bn1.num_batches_tracked", torch::tensor(int64_t{7})},
                    {"half", torch::randn({4}).to(torch::kBFloat16)},
                    {"empty", torch::empty({0, 3})}};
  const StringMap meta{{"model", "net"}, {"mean", "[0.5, 0.5, 0.5]"}};
  const std::string bytes = encode_safetensors(tensors, meta);
  uint64_t header_len = 0;
  for (size_t i = 8; i-- > 0;) header_len = header_len << 8 | static_cast<uint8_t>(bytes[i]);
  CHECK((8 + header_len) % 8 == 0);  // data aligned
  const auto header = json::parse(bytes.substr(8, header_len));
  CHECK(header.at("bn1.num_batches_tracked").at("dtype") == "I64");
  CHECK(header.at("half").at("dtype") == "F32");  // bf16 written as float32
  CHECK(header.at("__metadata__").at("model") == "net");

  const auto file = decode_safetensors(bytes_of(bytes), "mem");
  CHECK(file.metadata == meta);
  REQUIRE(file.tensors.size() == tensors.size());
  CHECK(torch::equal(file.tensors.at("conv1.weight"), tensors.at("conv1.weight")));
  CHECK(file.tensors.at("bn1.num_batches_tracked").scalar_type() == torch::kInt64);
  CHECK(file.tensors.at("bn1.num_batches_tracked").item<int64_t>() == 7);
  CHECK(torch::equal(file.tensors.at("half"), tensors.at("half").to(torch::kFloat32)));
  CHECK(file.tensors.at("empty").sizes() == c10::IntArrayRef({0, 3}));

  test::TempDir dir;
  write_safetensors(dir.path() / "a.safetensors", tensors, meta);
  CHECK(read_safetensors(dir.path() / "a.safetensors").tensors.size() == tensors.size());
}

TEST_CASE("safetensors headers that lie are refused with the problem named", "[safetensors]") {
  const auto refuse = [](const std::string& bytes, const std::string& words) {
    CAPTURE(words);
    REQUIRE_THROWS_WITH(parse_safetensors_header(bytes_of(bytes), "bad.safetensors"),
                        Catch::Contains("bad.safetensors") && Catch::Contains(words));
  };
  refuse("", "too short");
  refuse(std::string("\x10\0\0\0", 4), "too short");
  refuse(std::string("\xff\xff\0\0\0\0\0\0{}", 10), "larger than the");
  refuse(std::string("\0\0\0\0\0\0\0\x01{}", 10), "exceeds");
  refuse(std::string("\x02\0\0\0\0\0\0\0[]", 10), "not a JSON object");
  refuse(std::string("\x04\0\0\0\0\0\0\0{\"a\"", 12), "not a JSON object");
  refuse(file_with_header({{"w", entry("F32", {2}, 0, 8)}}, 4), "truncated or its header lies");
  refuse(file_with_header({{"w", entry("F32", {2}, 0, 4)}}, 4), "need 8");
  refuse(file_with_header({{"w", entry("Q7", {1}, 0, 4)}}, 4), "dtype 'Q7'");
  refuse(file_with_header({{"w", entry("F32", {-1}, 0, 4)}}, 4), "bad size");
  // No elements, but sizes whose product overflows LibTorch's strides (it
  // stopped with "Stride calculation overflowed", naming no file).
  refuse(file_with_header({{"w", entry("F32", {0, 1LL << 40, 1LL << 40}, 0, 0)}}, 0),
         "entry 'w' has a shape too large to hold ([0,1099511627776,1099511627776])");
  refuse(file_with_header({{"w", entry("F32", {1}, 4, 0)}}, 4), "before it begins");
  refuse(file_with_header({{"a", entry("F32", {2}, 0, 8)}, {"b", entry("F32", {1}, 4, 8)}}, 8),
         "overlaps");
  refuse(file_with_header({{"a", entry("F32", {1}, 4, 8)}}, 8), "gap");
  refuse(file_with_header({{"a", entry("F32", {1}, 0, 4)}}, 8), "cover 4 bytes of a 8-byte");
  refuse(file_with_header({{"__metadata__", {{"k", 1}}}}, 0), "not a string");
  refuse(file_with_header({{"w", {{"dtype", "F32"}, {"shape", {1}}}}}, 4), "data_offsets");
  // A well-formed one passes.
  CHECK(parse_safetensors_header(bytes_of(file_with_header({{"w", entry("I64", {1}, 0, 8)}}, 8)),
                                 "ok")
            .entries.size() == 1);
}
