// Tests of weights files: names, strict application, metadata, formats,
// export, import, and the normalisation flags.
#include <catch2/catch.hpp>
#include <nlohmann/json.hpp>

#include <filesystem>
#include <stdexcept>

#include "cifar/formats/safetensors.h"
#include "cifar/formats/torch_pickle.h"
#include "cifar/io/weights.h"
#include "data/image_files.h"
#include "test_helpers.h"

using namespace cifar;

namespace {

CheckpointInfo info_for(const std::string& model) {
  CheckpointInfo info;
  info.model = model;
  info.class_names = default_class_names();
  info.normalization = Normalization{{0.1, 0.2, 0.3}, {0.4, 0.5, 0.6}};
  return info;
}

torch::Tensor logits(ClassifierImpl& model, const torch::Tensor& x) {
  torch::NoGradGuard no_grad;
  model.eval();
  return model.forward(x);
}

}  // namespace

TEST_CASE("state dict names are Python's, buffers included", "[weights]") {
  auto resnet = make_model(ModelOptions("resnet18"));
  const auto sd = model_state_dict(*resnet);
  CHECK(sd.contains("conv1.weight"));
  CHECK(sd.contains("layer2.0.downsample.0.weight"));
  CHECK(sd.contains("layer4.1.bn2.running_var"));
  REQUIRE(sd.contains("bn1.num_batches_tracked"));
  CHECK(sd.at("bn1.num_batches_tracked").scalar_type() == torch::kInt64);
  CHECK(sd.size() == 122);  // torchvision's resnet18 state dict has 122 entries
  CHECK(model_state_dict(*make_model(ModelOptions("net"))).size() == 10);
}

TEST_CASE("export then load gives the same model, in both formats", "[weights]") {
  test::TempDir dir;
  auto model = make_model(ModelOptions("resnet18"));
  // Non-trivial BN statistics, so buffers must travel too.
  for (auto& b : model->named_buffers()) {
    if (b.key().ends_with("running_mean")) b.value().uniform_(-1, 1);
  }
  const auto x = torch::randn({2, 3, 32, 32});
  const auto want = logits(*model, x);
  const auto info = info_for("resnet18");
  for (const std::string name : {"m.safetensors", "m.pt", "m.pth"}) {
    CAPTURE(name);
    export_weights(info, *model, dir.path() / name);
    WeightsOptions options;
    if (!name.ends_with(".safetensors")) options.model = "resnet18";  // .pt has no metadata
    auto loaded = load_weights(dir.path() / name, options);
    CHECK(torch::allclose(logits(*loaded.model, x), want, 0, 0));
    if (name.ends_with(".safetensors")) {
      CHECK(loaded.info.normalization.mean == info.normalization.mean);
      CHECK(loaded.info.normalization.std == info.normalization.std);
      CHECK(loaded.normalization_note == "from the file's metadata");
    } else {
      CHECK(loaded.info.normalization.mean == Normalization{}.mean);
      CHECK(loaded.normalization_note.find("default") != std::string::npos);
    }
  }
  WeightsOptions override_norm;
  override_norm.normalization = Normalization{{0, 0, 0}, {1, 1, 1}};
  CHECK(load_weights(dir.path() / "m.safetensors", override_norm).info.normalization.std[0] == 1);
  const auto meta = read_safetensors(dir.path() / "m.safetensors").metadata;
  CHECK(meta.at("model") == "resnet18");
  CHECK(meta.at("stem") == "cifar");
  CHECK(meta.at("classes").find("\"airplane\"") != std::string::npos);
  CHECK(meta.contains("cifar_train_version"));
  // Which model? The tools refuse it first (resolve/: a UsageError); here the
  // problem's text says it, and the read is an impossible input.
  CHECK_THAT(weights_path_problem(dir.path() / "m.pt", {}),
             Catch::Contains("does not say which model it holds; pass --model"));
  CHECK_THROWS_AS(load_weights(dir.path() / "m.pt", {}), std::invalid_argument);
  CHECK_THROWS_AS(export_weights(info, *model, dir.path() / "m.onnx"), std::invalid_argument);
  CHECK_FALSE(std::filesystem::exists(dir.path() / "m.onnx"));
}

TEST_CASE("weights that do not fit are listed by name in one error", "[weights]") {
  auto net = make_model(ModelOptions("net"));
  TensorMap sd = model_state_dict(*net);
  sd.erase("fc3.bias");
  sd["fc4.weight"] = torch::zeros({1});
  sd["conv1.weight"] = torch::zeros({6, 3, 3, 3});
  REQUIRE_THROWS_WITH(
      apply_weights(*net, sd, "net", "x.pt"),
      Catch::Contains("x.pt") && Catch::Contains("missing: fc3.bias") &&
          Catch::Contains("unexpected: fc4.weight") &&
          Catch::Contains("conv1.weight is [6, 3, 3, 3] in the file, [6, 3, 5, 5]"));

  // torchvision's ImageNet ResNet-18 is explained as such.
  auto imagenet =
      make_model(ModelOptions("resnet18").stem(ResNetStem::kImageNet).num_classes(1000));
  auto cifar_resnet = make_model(ModelOptions("resnet18"));
  REQUIRE_THROWS_WITH(
      apply_weights(*cifar_resnet, model_state_dict(*imagenet), "resnet18", "tv.pt"),
      Catch::Contains("torchvision ResNet-18 for ImageNet") &&
          Catch::Contains("fc.weight is [1000, 512]"));
  // Given as that model already, it is not told to pass what it passed: an
  // extra tensor is only listed, a third block a stage named as a deeper ResNet.
  TensorMap extra = model_state_dict(*imagenet);
  extra["extra.weight"] = torch::zeros({1});
  REQUIRE_THROWS_WITH(apply_weights(*imagenet, extra, "resnet18", "tv.pt"),
                      Catch::Contains("unexpected: extra.weight") &&
                          !Catch::Contains("pass --model resnet18 --stem imagenet"));
  TensorMap deeper = model_state_dict(*imagenet);
  deeper["layer1.2.conv1.weight"] = torch::zeros({64, 64, 3, 3});
  REQUIRE_THROWS_WITH(apply_weights(*imagenet, deeper, "resnet18", "tv34.pt"),
                      Catch::Contains("this is a deeper torchvision ResNet") &&
                          Catch::Contains("ResNet-34") &&
                          !Catch::Contains("pass --model resnet18 --stem imagenet"));
}

// PyTorch before 0.4.1 saved no num_batches_tracked: PyTorch's BatchNorm
// loads such a file with the count at 0, and so does apply_weights; any
// other tensor missing is still refused.
TEST_CASE("a state dict saved before batch norms counted their batches loads", "[weights]") {
  auto model = make_model(ModelOptions("resnet18"));
  TensorMap sd = model_state_dict(*model);
  for (auto& [name, t] : sd) {
    if (t.is_floating_point()) t = torch::full_like(t, 0.5);
  }
  std::vector<std::string> counts;
  for (const auto& [name, t] : sd) {
    if (name.ends_with(".num_batches_tracked")) counts.push_back(name);
  }
  REQUIRE(counts.size() == 20);
  for (const auto& name : counts) sd.erase(name);
  auto loaded = make_model(ModelOptions("resnet18"));
  model_state_dict(*loaded).at("bn1.num_batches_tracked").fill_(7);
  apply_weights(*loaded, sd, "resnet18", "old.pth");
  const TensorMap now = model_state_dict(*loaded);
  CHECK(now.at("bn1.num_batches_tracked").item<int64_t>() == 0);
  CHECK(torch::equal(now.at("layer4.1.bn2.running_var"), sd.at("layer4.1.bn2.running_var")));
  sd.erase("bn1.running_mean");
  REQUIRE_THROWS_WITH(apply_weights(*loaded, sd, "resnet18", "old.pth"),
                      Catch::Contains("missing: bn1.running_mean") &&
                          !Catch::Contains("num_batches_tracked") &&
                          !Catch::Contains("no name matches"));
  // Names none of which are the model's are still asked about, counts aside.
  TensorMap foreign;
  for (const auto& [name, t] : model_state_dict(*loaded)) foreign["backbone." + name + "_v1"] = t;
  REQUIRE_THROWS_WITH(apply_weights(*loaded, foreign, "resnet18", "odd.pth"),
                      Catch::Contains("no name matches: is it a resnet18 model?"));
  // No tensors at all (a safetensors header of metadata only): refused, no hint.
  REQUIRE_THROWS_WITH(apply_weights(*loaded, TensorMap{}, "resnet18", "none.safetensors"),
                      Catch::Contains("missing: bn1.bias"));
  // The model's names behind a holding module's attribute: that is said.
  TensorMap held;
  for (const auto& [name, t] : model_state_dict(*loaded)) held["backbone." + name] = t;
  REQUIRE_THROWS_WITH(
      apply_weights(*loaded, held, "resnet18", "odd.pth"),
      Catch::Contains("every name starts with 'backbone.'") && !Catch::Contains("no name matches"));
  // Another model's names (a head for other classes too, counts aside): that
  // model is named.
  TensorMap net_sd = model_state_dict(*make_model(ModelOptions("net").num_classes(3)));
  for (const char* other : {"resnet18", "airbench94"}) {
    REQUIRE_THROWS_WITH(apply_weights(*make_model(ModelOptions(other)), net_sd, other, "net.pt"),
                        Catch::Contains("its names are a net model's: pass --model net"));
  }
  const TensorMap resnet_sd = model_state_dict(*make_model(ModelOptions("resnet18")));
  REQUIRE_THROWS_WITH(apply_weights(*make_model(ModelOptions("net")), resnet_sd, "net", "r.pth"),
                      Catch::Contains("its names are a resnet18 model's: pass --model resnet18"));
}

// Issue 47, class 2: the class count was read before the "module." prefix
// was removed, so a DataParallel file with a 1000-class head was built as a
// 10-class model and refused. Every layout, in both formats, is one view.
TEST_CASE("a weights file's layout is undone once, before anything is read from it", "[weights]") {
  test::TempDir dir;
  auto saved = make_model(ModelOptions("net").num_classes(1000));
  const auto x = torch::randn({2, 3, 32, 32});
  const auto want = logits(*saved, x);
  for (const std::string prefix :
       {"", "module.", "_orig_mod.", "module._orig_mod.", "_orig_mod.module."}) {
    for (const std::string ext : {".pt", ".safetensors"}) {
      CAPTURE(prefix, ext);
      TensorMap prefixed;
      for (const auto& [k, v] : model_state_dict(*saved)) prefixed[prefix + k] = v;
      const auto path = dir.path() / ("m" + ext);
      write_weights(path, prefixed, {});
      CHECK(read_weights(path).tensors.contains("fc3.weight"));
      WeightsOptions options;
      options.model = "net";
      const ImportedWeights w = import_weights(path, options);
      CHECK(w.class_names.size() == 1000);
      CHECK(torch::equal(logits(*w.model, x), want));
      options.num_classes = 3;  // the data's: the count named is the file's
      CHECK_THROWS_WITH(import_weights(path, options),
                        Catch::Contains("its output layer has 1000 outputs"));
    }
  }
}

TEST_CASE("imported weights say which model, stem, normalisation and classes they are",
          "[weights]") {
  test::TempDir dir;
  auto model = make_model(ModelOptions("resnet18").stem(ResNetStem::kImageNet).num_classes(3));
  CheckpointInfo info = info_for("resnet18");
  info.stem = "imagenet";
  info.class_names = {"cat", "dog", "frog"};
  info.num_classes = 3;
  export_weights(info, *model, dir.path() / "m.safetensors");

  const ImportedWeights w = import_weights(dir.path() / "m.safetensors", {});
  CHECK(w.model_name == "resnet18");
  CHECK(w.stem == ResNetStem::kImageNet);
  CHECK(w.class_names == info.class_names);
  CHECK(w.normalization.mean == info.normalization.mean);
  CHECK(w.normalization.std == info.normalization.std);
  CHECK(w.normalization_note == "from the file's metadata");
  CHECK_FALSE(w.model->is_training());
  const auto x = torch::randn({2, 3, 32, 32});
  CHECK(torch::equal(logits(*w.model, x), logits(*model, x)));

  // What a checkpoint would say: the same description, nothing measured.
  const CheckpointInfo described = weights_info(w);
  CHECK(described.model == "resnet18");
  CHECK(described.stem == "imagenet");
  CHECK(described.num_classes == 3);
  CHECK(described.class_names == info.class_names);
  CHECK(described.normalization.std == info.normalization.std);
  CHECK(described.epoch == 0);
  CHECK(described.test_accuracy == -1);
  CHECK(described.best_accuracy == -1);

  // --mean/--std over the recorded normalisation: used, and warned as the
  // image options are (issue 54: it was an info line only); equal: silent.
  {
    test::LogCapture log;
    WeightsOptions given;
    given.normalization = Normalization{{0.5, 0.5, 0.5}, {0.25, 0.25, 0.25}};
    const ImportedWeights over = import_weights(dir.path() / "m.safetensors", given);
    CHECK(over.normalization.mean == given.normalization->mean);
    CHECK_THAT(log.text(), Catch::Contains("warning") &&
                               Catch::Contains("--mean 0.5,0.5,0.5 --std 0.25,0.25,0.25 given, "
                                               "over what the file's metadata records (--mean "
                                               "0.1,0.2,0.3 --std 0.4,0.5,0.6)"));
    given.normalization = info.normalization;
    test::LogCapture same;
    import_weights(dir.path() / "m.safetensors", given);
    CHECK_THAT(same.text(), !Catch::Contains("warning"));
  }

  // The options win over the metadata: a CIFAR stem does not fit these tensors.
  WeightsOptions cifar_stem;
  cifar_stem.stem = ResNetStem::kCifar;
  CHECK_THROWS_WITH(import_weights(dir.path() / "m.safetensors", cifar_stem),
                    Catch::Contains("conv1.weight is [64, 3, 7, 7] in the file, [64, 3, 3, 3]"));
}

TEST_CASE("weights metadata: what it says, and malformed values named", "[weights]") {
  const StringMap full = weights_metadata(info_for("net"));
  const WeightsMetadata m = parse_weights_metadata(full, "m.safetensors");
  CHECK(m.model == "net");
  CHECK(m.stem == ResNetStem::kCifar);
  REQUIRE(m.normalization);
  CHECK(m.normalization->mean == std::array<double, 3>{0.1, 0.2, 0.3});
  CHECK(m.class_names == default_class_names());
  CHECK(full.at("format") == "pt");

  const WeightsMetadata none = parse_weights_metadata({}, "m.safetensors");
  CHECK_FALSE(none.model);
  CHECK_FALSE(none.stem);
  CHECK_FALSE(none.normalization);
  CHECK_FALSE(none.class_names);
  // Half a normalisation is refused, not dropped for the training default
  // (which the log then called "the file does not say").
  CHECK_THROWS_WITH(parse_weights_metadata({{"mean", "[0.5, 0.5, 0.5]"}}, "m"),
                    Catch::Contains("weights file m: its metadata has 'mean' but no 'std'"));
  CHECK_THROWS_WITH(parse_weights_metadata({{"std", "not json"}}, "m"),
                    Catch::Contains("has 'std' but no 'mean'"));
  // --mean and --std replace it: nothing to refuse.
  CHECK_FALSE(
      parse_weights_metadata({{"mean", "[0.5, 0.5, 0.5]"}}, "m", /*normalization_given=*/true)
          .normalization);

  CHECK_THROWS_WITH(
      parse_weights_metadata({{"stem", "tiny"}}, "m.safetensors"),
      Catch::Contains("m.safetensors") && Catch::Contains("'stem'") && Catch::Contains("'tiny'"));
  CHECK_THROWS_WITH(parse_weights_metadata({{"mean", "[1, 2]"}, {"std", "[1, 1, 1]"}}, "m"),
                    Catch::Contains("metadata 'mean' is '[1, 2]'"));
  CHECK_THROWS_WITH(parse_weights_metadata({{"mean", "[0, 0, 0]"}, {"std", "[1, 0, 1]"}}, "m"),
                    Catch::Contains("'std'") && Catch::Contains("in [0.001, 1]"));
  // Values arithmetic cannot use (issue 22): overflow, 0-255 units, NaN.
  CHECK_THROWS_WITH(
      parse_weights_metadata({{"mean", "[1e308, 0, 0]"}, {"std", "[1, 1, 1]"}}, "m"),
      Catch::Contains("metadata 'mean' is '[1e308, 0, 0]'") && Catch::Contains("in [0, 1]"));
  CHECK_THROWS_WITH(parse_weights_metadata({{"mean", "[0, 0, 0]"}, {"std", "[63, 62, 66]"}}, "m"),
                    Catch::Contains("0-255 units"));
  CHECK_NOTHROW(parse_weights_metadata({{"mean", "[0, 1, 0.5]"}, {"std", "[1, 0.001, 0.2]"}}, "m"));
  CHECK_THROWS_WITH(
      parse_weights_metadata(
          {{"classes", nlohmann::json(std::vector<std::string>(100001, "x")).dump()}}, "m"),
      Catch::Contains("lists 100001 names, more than the 100000"));
  CHECK_THROWS_WITH(parse_weights_metadata({{"classes", "[1, 2]"}}, "m"),
                    Catch::Contains("'classes'"));
  // Each class a name of its own: a prediction would name two classes alike.
  CHECK_THROWS_WITH(parse_weights_metadata({{"classes", R"(["cat", "dog", "cat"])"}}, "m"),
                    Catch::Contains("metadata 'classes' names 'cat' twice"));
  CHECK_THROWS_WITH(parse_weights_metadata({{"classes", R"(["cat", ""])"}}, "m"),
                    Catch::Contains("metadata 'classes' has an empty name"));
  CHECK(parse_weights_metadata({{"classes", R"(["cat", "dog"])"}}, "m").class_names->size() == 2);
  // image_size: the range --image-size takes (a run would use it as one).
  CHECK(parse_weights_metadata({{"image_size", "1024"}}, "m").image_size == 1024);
  CHECK_THROWS_WITH(parse_weights_metadata({{"image_size", "1025"}}, "m"),
                    Catch::Contains("metadata 'image_size' is '1025'") &&
                        Catch::Contains("from 8 to 1024, as --image-size takes"));
  CHECK_THROWS_WITH(parse_weights_metadata({{"image_size", "4"}}, "m"),
                    Catch::Contains("from 8 to 1024"));
}

TEST_CASE("weights metadata carries the preparation bit for bit", "[weights]") {
  // 32/36 printed with 6 digits (0.888889) resizes to 35 px, not 36 (issue 54).
  CheckpointInfo info = info_for("net");
  info.image.image_size = 32;
  info.prep = ImagePrep{.mode = CropMode::kCenter, .crop_pct = 32.0 / 36.0};
  const WeightsMetadata m = parse_weights_metadata(weights_metadata(info), "m.safetensors");
  REQUIRE(m.prep);
  CHECK(m.prep->mode == CropMode::kCenter);
  CHECK(m.prep->crop_pct == 32.0 / 36.0);
}

TEST_CASE("the weights format is the extension's, in any case", "[weights]") {
  CHECK(weights_format("a/m.safetensors") == WeightsFormat::kSafetensors);
  CHECK(weights_format("M.SafeTensors") == WeightsFormat::kSafetensors);
  CHECK(weights_format("m.pt") == WeightsFormat::kTorch);
  CHECK(weights_format("m.PTH") == WeightsFormat::kTorch);
  CHECK(weights_format_problem("M.SafeTensors").empty());
  CHECK(weights_format_problem("m.pth").empty());
  // Any other extension: the problem's text, which the tools refuse
  // (resolve/); weights_format's precondition.
  CHECK_THAT(weights_format_problem("m.onnx"), Catch::Contains("m.onnx") &&
                                                   Catch::Contains("'.onnx'") &&
                                                   Catch::Contains(".safetensors, .pt or .pth"));
  CHECK_THAT(weights_format_problem("model"), Catch::Contains("unknown extension ''"));
  CHECK_THROWS_AS(weights_format("model"), std::invalid_argument);
}

TEST_CASE("weights without a class list get as many classes as their head has", "[weights]") {
  test::TempDir dir;
  torch::manual_seed(2);
  auto model = make_model(ModelOptions("net").num_classes(100));
  write_weights(dir.path() / "py.safetensors", model_state_dict(*model), {});
  WeightsOptions options;
  options.model = "net";
  const ImportedWeights w = import_weights(dir.path() / "py.safetensors", options);
  CHECK_FALSE(w.class_names_known);
  REQUIRE(w.class_names.size() == 100);
  CHECK(w.class_names[99] == "class_99");
  // Ten outputs keep CIFAR-10's names, as before.
  auto ten = make_model(ModelOptions("airbench94"));
  write_weights(dir.path() / "ten.safetensors", model_state_dict(*ten), {});
  options.model = "airbench94";
  CHECK(import_weights(dir.path() / "ten.safetensors", options).class_names ==
        default_class_names());
}
