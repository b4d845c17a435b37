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
std::string zip_with_pickle(const std::string& pickle) {
  std::string out;
  caffe2::serialize::PyTorchStreamWriter writer([&out](const void* data, size_t size) {
    out.append(static_cast<const char*>(data), size);
    return size;
  });
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
  refuse("hello", "not a torch.save zip");
  const std::string good = encode_torch_state_dict({{"w", torch::ones({64})}});
  refuse(good.substr(0, good.size() / 2), "truncated or damaged");
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
