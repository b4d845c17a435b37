// Tests of the .pt writer and reader (Python's torch.load and torch.save are
// the clients in tests/cli/interop_*.sh).
#include <caffe2/serialize/inline_container.h>
#include <torch/csrc/jit/serialization/pickler.h>

#include <catch2/catch.hpp>
#include <sstream>

#include "cifar/formats/torch_pickle.h"
#include "test_helpers.h"

using namespace cifar;
using namespace std::string_literals;  // the pickles below hold NUL bytes

namespace {

// A torch.save-layout zip holding `pickle` as data.pkl.
// (`version`: the archive's format version, as a newer PyTorch would write.)
std::string zip_with_pickle(const std::string& pickle, uint64_t version = 0) {
  std::string out;
  caffe2::serialize::PyTorchStreamWriter writer([&out](const void* data, size_t size) {
    out.append(static_cast<const char*>(data), size);
    return size;
  });
  if (version > 0) writer.setMinVersion(version);
  writer.writeRecord("data.pkl", pickle.data(), pickle.size());
  writer.writeEndOfFile();
  return out;
}

}  // namespace

TEST_CASE("a .pt written here reads back, untagged, in torch.save's layout", "[pickle]") {
  const TensorMap tensors{{"fc.weight", torch::randn({3, 4})},
                          {"fc.bias", torch::randn({3}).to(torch::kBFloat16)},
                          {"bn.num_batches_tracked", torch::tensor(int64_t{12})},
                          {"t", torch::randn({4, 3}).t()}};  // not contiguous
  const std::string bytes = encode_torch_state_dict(tensors);

  std::istringstream stream(bytes);
  caffe2::serialize::PyTorchStreamReader zip(&stream);
  CHECK(zip.hasRecord("data.pkl"));
  CHECK(zip.hasRecord("byteorder"));
  CHECK(zip.hasRecord("data/0"));
  CHECK_FALSE(zip.hasRecord("constants.pkl"));
  const auto [data, size] = zip.getRecord("data.pkl");
  const std::string pickle(static_cast<const char*>(data.get()), size);
  CHECK(pickle.find("restore_type_tag") == std::string::npos);  // weights_only refuses type tags
  CHECK(pickle.find("_rebuild_tensor_v2") != std::string::npos);

  const TensorMap back = decode_torch_state_dict(bytes, "mem");
  REQUIRE(back.size() == tensors.size());
  CHECK(torch::equal(back.at("fc.weight"), tensors.at("fc.weight")));
  CHECK(back.at("fc.bias").scalar_type() == torch::kFloat32);
  CHECK(torch::equal(back.at("fc.bias"), tensors.at("fc.bias").to(torch::kFloat32)));
  CHECK(back.at("bn.num_batches_tracked").scalar_type() == torch::kInt64);
  CHECK(back.at("bn.num_batches_tracked").item<int64_t>() == 12);
  CHECK(torch::equal(back.at("t"), tensors.at("t")));

  test::TempDir dir;
  write_torch_state_dict(dir.path() / "sd.pt", tensors);
  CHECK(read_torch_state_dict(dir.path() / "sd.pt").size() == tensors.size());
}

TEST_CASE(".pt files that are not state dicts are refused by name", "[pickle]") {
  const auto refuse = [](const std::string& bytes, const std::string& words) {
    CAPTURE(words);
    REQUIRE_THROWS_WITH(decode_torch_state_dict(bytes, "bad.pt"),
                        Catch::Contains("bad.pt") && Catch::Contains(words));
  };
  refuse("hello", "not a torch.save file");
  const std::string good = encode_torch_state_dict({{"w", torch::ones({64})}});
  refuse(good.substr(0, good.size() / 2), "truncated or damaged");
  // LibTorch's reader's own words are cut to their first sentence (miniz's
  // "If you are seeing this error..." and the "[enforce fail at ...]" go).
  CHECK_THROWS_WITH(decode_torch_state_dict(good.substr(0, good.size() / 2), "bad.pt"),
                    !Catch::Contains("If you are seeing") && !Catch::Contains("enforce fail"));
  CHECK_THROWS_WITH(decode_torch_state_dict(zip_with_pickle("\x80\x02}q\x00."s, 99), "new.pt"),
                    Catch::Contains("new.pt: Attempted to read a PyTorch file with version 99") &&
                        Catch::Contains("save the weights as .safetensors") &&
                        !Catch::Contains("enforce fail") &&
                        !Catch::Contains("truncated or damaged"));
  refuse(zip_with_pickle("\x80\x02]q\x00."s), "holds a list, not a dict");  // []
  refuse(zip_with_pickle("\x80\x02"
                         "cos\nsystem\nq\x00."s),
         "of type os.system");  // a callable
  refuse(zip_with_pickle("\x80\x02}q\x00(X\x01\x00\x00\x00"
                         "aK\x01u."s),
         "not a state dict");
  refuse(zip_with_pickle("\x80\x02}q\x00(X\x01\x00\x00\x00"
                         "a"s),
         "truncated");
  refuse(zip_with_pickle("\x80\x02h\x05."s), "memo");
  refuse(zip_with_pickle("\x80\x02\xff."s), "opcode 0xff");

  std::ostringstream torchscript;  // LibTorch's torch::save writes TorchScript
  torch::save(torch::ones({2}), torchscript);
  refuse(torchscript.str(), "TorchScript");
}

TEST_CASE("a state dict under a known key of a saved dict is found", "[pickle]") {
  // {"epoch": 3, "model": {"w": tensor}} as torch.save would pickle it,
  // written by LibTorch's own pickler (untagged).
  c10::Dict<std::string, at::Tensor> sd;
  sd.insert("w", torch::arange(4.0));
  c10::impl::GenericDict outer(c10::StringType::get(), c10::AnyType::get());
  outer.insert("epoch", int64_t{3});
  outer.insert("model", sd);
  std::vector<char> pickle;
  std::vector<at::Tensor> storages;
  {
    torch::jit::Pickler p([&](const char* d, size_t n) { pickle.insert(pickle.end(), d, d + n); },
                          nullptr, nullptr, nullptr, [](const at::Tensor&) { return "0"; },
                          /*tag_aggregates=*/false);
    p.protocol();
    p.pushIValue(outer);
    p.stop();
    storages = p.tensorData();
  }
  std::string out;
  caffe2::serialize::PyTorchStreamWriter writer([&out](const void* data, size_t size) {
    out.append(static_cast<const char*>(data), size);
    return size;
  });
  writer.writeRecord("data.pkl", pickle.data(), pickle.size());
  writer.writeRecord("data/0", storages.at(0).storage().data(), storages.at(0).storage().nbytes());
  writer.writeEndOfFile();
  const auto back = decode_torch_state_dict(out, "dict.pt");
  CHECK(torch::equal(back.at("w"), torch::arange(4.0)));
}

namespace {

// Pieces of hand-written pickles (protocol 2) for the limits below.
std::string pickle_str(const std::string& s) {
  const auto n = static_cast<uint32_t>(s.size());
  return "X"s + std::string(reinterpret_cast<const char*>(&n), 4) + s;  // little-endian host
}
std::string pickle_int(uint32_t v) {
  return "J"s + std::string(reinterpret_cast<const char*>(&v), 4);
}
// ("storage", torch.FloatStorage, key, "cpu", numel) as a persistent id.
std::string storage_ref(const std::string& key, uint32_t numel) {
  return "("s + pickle_str("storage") + "ctorch\nFloatStorage\n" + pickle_str(key) +
         pickle_str("cpu") + pickle_int(numel) + "tQ";
}
// _rebuild_tensor_v2(storage, offset, (size,), (stride,)) of a 1-D tensor.
std::string tensor_ref(const std::string& storage, uint32_t offset, uint32_t size,
                       uint32_t stride) {
  return "ctorch._utils\n_rebuild_tensor_v2\n("s + storage + pickle_int(offset) + pickle_int(size) +
         "\x85" + pickle_int(stride) + "\x85tR";
}

// The same with sizes (s0, s1, s2) and strides 0, as 8-byte LONG1 integers.
std::string pickle_long(int64_t v) {
  return "\x8a\x08"s + std::string(reinterpret_cast<const char*>(&v), 8);  // little-endian host
}
std::string tensor_ref3(const std::string& storage, int64_t s0, int64_t s1, int64_t s2) {
  return "ctorch._utils\n_rebuild_tensor_v2\n("s + storage + pickle_int(0) + "("s +
         pickle_long(s0) + pickle_long(s1) + pickle_long(s2) + "t(" + pickle_long(0) +
         pickle_long(0) + pickle_long(0) + "ttR";
}

struct CountingLoader {
  int calls = 0;
  pickle::StorageLoader loader() {
    return [this](const std::string&, torch::ScalarType dtype, int64_t numel) {
      ++calls;
      return torch::zeros({numel}, torch::TensorOptions().dtype(dtype));
    };
  }
};

}  // namespace

TEST_CASE("the unpickler bounds nesting: deep lists and tuples are refused, not recursed into",
          "[pickle]") {
  CountingLoader load;
  const auto run = [&](const std::string& body) {
    return pickle::unpickle("\x80\x02"s + body + ".", load.loader());
  };
  // [[[...]]] 32 deep is fine, 33 deep is not; 100,000 deep (what crashed
  // with SIGSEGV when freed) neither.
  CHECK_NOTHROW(run(std::string(33, ']') + std::string(32, 'a')));
  CHECK_THROWS_WITH(run(std::string(34, ']') + std::string(33, 'a')),
                    Catch::Contains("nests containers more than 32 deep"));
  CHECK_THROWS_WITH(run(std::string(100000, ']') + std::string(99999, 'a')),
                    Catch::Contains("more than 32 deep"));
  std::string tuples(100001, '\x85');  // N, then 100,000 TUPLE1 (not "N" + ...: GCC 12's
  tuples[0] = 'N';                     // -Wstringop-overflow misreads that concatenation)
  CHECK_THROWS_WITH(run(tuples), Catch::Contains("more than 32 deep"));
  std::string dicts = "}";  // {1: {1: {1: ...}}}
  for (int i = 0; i < 100000; ++i) dicts += "K\x01}";
  CHECK_THROWS_WITH(run(dicts + std::string(100000, 's')), Catch::Contains("more than 32 deep"));
  // Cycles: a list inside itself, a list changed after it went into another.
  CHECK_THROWS_WITH(run("]2a"), Catch::Contains("inside itself"));
  CHECK_THROWS_WITH(run("]q\x00]h\x00"s + "a0]a"), Catch::Contains("already inside another"));
  // A limit given by the caller.
  CHECK_THROWS_WITH(pickle::unpickle("\x80\x02]]]aa.", load.loader(), {.max_depth = 1}),
                    Catch::Contains("more than 1 deep"));
}

TEST_CASE("the unpickler bounds the bytes its storages and tensor copies take", "[pickle]") {
  const pickle::Limits limits{.max_bytes = 1000, .why = "the test's limit"};
  const auto run = [&](CountingLoader& load, const std::string& body) {
    return pickle::unpickle("\x80\x02"s + body + ".", load.loader(), limits);
  };
  CountingLoader load;
  // A storage of 2^24 floats (what a small deflated record can inflate to).
  CHECK_THROWS_WITH(run(load, storage_ref("0", 1u << 24)),
                    Catch::Contains("the storage data/0 would take 67108864 bytes") &&
                        Catch::Contains("the test's limit"));
  CHECK(load.calls == 0);  // refused before it is read
  // A tensor of stride 0 over a one-element storage.
  CHECK_THROWS_WITH(run(load, tensor_ref(storage_ref("0", 1), 0, 1u << 24, 0)),
                    Catch::Contains("a tensor of size [16777216]"));
  // No elements, but sizes whose product overflows LibTorch's strides (it
  // stopped with "Stride calculation overflowed").
  CHECK_THROWS_WITH(run(load, tensor_ref3(storage_ref("0", 1), 0, 1LL << 40, 1LL << 40)),
                    Catch::Contains("a tensor of size [0, 1099511627776, 1099511627776] is too "
                                    "large to hold"));
  // The same storage referenced ten times is read once and counted once...
  std::string list = "]("s;
  for (int i = 0; i < 10; ++i) list += tensor_ref(storage_ref("0", 200), 0, 200, 1);
  CountingLoader once;
  const auto value = run(once, list + "e");
  CHECK(once.calls == 1);
  CHECK(std::get<pickle::List>(value->content).items.size() == 10);
  // ...but each partial view of it is a copy, and the copies add up.
  std::string copies = "]("s;
  for (int i = 0; i < 10; ++i) copies += tensor_ref(storage_ref("0", 200), 1, 100, 1);
  CHECK_THROWS_WITH(run(load, copies + "e"), Catch::Contains("of at most 1000 are taken"));
}
