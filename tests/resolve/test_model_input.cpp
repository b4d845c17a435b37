// test_model_input.cpp: the Model options of cifar-eval, cifar-predict and
// cifar-export refused naming the option (check_model_input), and a weights
// file's problems refused as the user's to fix (resolve_weights): each
// message as the tools print it.
#include <catch2/catch.hpp>

#include <fstream>

#include <string>

#include "cifar/core/errors.h"
#include "cifar/io/weights.h"
#include "cifar/resolve/model_input.h"
#include "test_helpers.h"

using namespace cifar;
using cifar::test::TempDir;

namespace {
// The UsageError's text, or "" when none is thrown.
template <class F>
std::string refusal(F&& f) {
  try {
    f();
  } catch (const UsageError& e) {
    return e.what();
  }
  return "";
}

CheckpointInfo net_info() {
  CheckpointInfo info;
  info.class_names = default_class_names();
  info.libtorch_version = "2.11.0";
  return info;
}
}  // namespace

TEST_CASE("the Model options are refused naming them", "[resolve]") {
  auto invalid = [](auto mutate, const std::string& message) {
    ModelInput c;
    mutate(c);
    INFO(message);
    CHECK_THAT(refusal([&] { check_model_input(c); }), Catch::Contains(message));
  };
  invalid([](ModelInput&) {}, "give --checkpoint FILE (written by cifar-train) or --weights FILE");
  invalid(
      [](ModelInput& c) {
        c.checkpoint = "m.pt";
        c.weights = "w.pt";
      },
      "--checkpoint and --weights both name the model");
  invalid(
      [](ModelInput& c) {
        c.checkpoint = "m.pt";
        c.stem = ResNetStem::kCifar;
        c.mean = Channels{0.5, 0.5, 0.5};
      },
      "--stem, --mean go with --weights");
  invalid(
      [](ModelInput& c) {
        c.checkpoint = "m.pt";
        c.crop_pct = 0.5;
      },
      "--crop-pct goes with --weights");
  invalid(
      [](ModelInput& c) {
        c.weights = "w.pt";
        c.mean = Channels{0.5, 0.5, 0.5};
      },
      "--mean and --std go together: give --std too");
  invalid(
      [](ModelInput& c) {
        c.weights = "w.pt";
        c.image_size = 4;
      },
      "--image-size must be 0 (the weights file's) or from 8");
  invalid(
      [](ModelInput& c) {
        c.weights = "w.pt";
        c.mean = Channels{0.5, 0.5, 0.5};
        c.std = Channels{63, 62, 66};
      },
      "--std 63,62,66: ");
  ModelInput fine;
  fine.weights = "w.safetensors";
  fine.mean = Channels{0.5, 0.5, 0.5};
  fine.std = Channels{0.25, 0.25, 0.25};
  CHECK_NOTHROW(check_model_input(fine));
  // Nothing is read before the options are checked.
  fine.checkpoint = "missing.pt";
  CHECK_THAT(refusal([&] { load_model_input(fine); }), Catch::Contains("both name the model"));
}

TEST_CASE("a weights file's problems are the user's to fix, each named", "[resolve]") {
  TempDir dir;
  auto net = make_model(ModelOptions("net"));
  export_weights(net_info(), *net, dir.path() / "net.pt");
  write_weights(dir.path() / "bare.safetensors", model_state_dict(*net), {});
  write_weights(dir.path() / "vgg.safetensors", model_state_dict(*net), {{"model", "vgg"}});
  export_weights(net_info(), *net, dir.path() / "net.safetensors");

  // A .pt says no model: refused before it is read.
  CHECK_THAT(refusal([&] { resolve_weights(dir.path() / "net.pt", {}); }),
             Catch::Contains("weights file " + (dir.path() / "net.pt").string() +
                             " does not say which model it holds; pass --model (net, "));
  // A .pt that torch.save did not write says so, not that it names no model.
  std::ofstream(dir.path() / "empty.pt").flush();
  std::ofstream(dir.path() / "text.pt") << "root:x:0:0\n";
  for (const char* name : {"empty.pt", "text.pt"}) {
    CHECK_THAT(refusal([&] { resolve_weights(dir.path() / name, {}); }),
               Catch::Contains(std::string(name) + " is not a PyTorch file: it starts with neither "
                                                   "a zip archive's header"));
  }
  // A missing .pt (or a link to nothing) is said to be missing, a runtime
  // error, not a file that names no model.
  std::filesystem::create_symlink(dir.path() / "gone", dir.path() / "dangling.pth");
  for (const char* name : {"missing.pt", "dangling.pth"}) {
    CHECK_THROWS_WITH(
        resolve_weights(dir.path() / name, {}),
        Catch::Contains(std::string(name) + " does not exist") && !Catch::Contains("which model"));
  }
  // A .safetensors without metadata: refused once read.
  CHECK_THAT(refusal([&] { resolve_weights(dir.path() / "bare.safetensors", {}); }),
             Catch::Contains("does not say which model it holds; pass --model"));
  CHECK_THAT(refusal([&] { resolve_weights(dir.path() / "vgg.safetensors", {}); }),
             Catch::Contains("weights file " + (dir.path() / "vgg.safetensors").string() +
                             ": its metadata names model 'vgg', which cifar-train does not have "
                             "(net, ") &&
                 Catch::Contains("name it with --model"));
  WeightsOptions named;
  named.model = "net";
  CHECK_THAT(refusal([&] { resolve_weights(dir.path() / "x.onnx", named); }),
             Catch::Contains("x.onnx: unknown extension '.onnx'; use .safetensors, .pt or .pth") &&
                 Catch::Contains("an ONNX file is not read: give the .safetensors or .pt it was "
                                 "exported from") &&
                 !Catch::Contains("export_onnx.py"));
  WeightsOptions big;
  big.images.image_size = 40;
  CHECK_THAT(refusal([&] { resolve_weights(dir.path() / "net.safetensors", big); }),
             Catch::Contains("--image-size 40: net takes images of 32 px only"));

  // What the problems do not refuse is read as io/ reads it.
  const ImportedWeights w = resolve_weights(dir.path() / "net.pt", named);
  CHECK(w.model_name == "net");
  CHECK(resolve_weights(dir.path() / "bare.safetensors", named).class_names.size() == 10);
  CHECK(resolve_weights(dir.path() / "net.safetensors", {}).model_name == "net");
}
