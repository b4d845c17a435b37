// test_checkpoint.cpp: round trips, and every kind of bad checkpoint file.
#include <catch2/catch.hpp>

#include <fstream>

#include "cifar/checkpoint.h"
#include "cifar/errors.h"
#include "cifar/optim.h"
#include "test_helpers.h"

using namespace cifar;
using cifar::test::TempDir;

namespace {
CheckpointInfo sample_info(const std::string& model = "net") {
  CheckpointInfo info;
  info.model = model;
  info.epoch = 3;
  info.global_step = 1234;
  info.test_accuracy = 0.5;
  info.best_accuracy = 0.55;
  info.class_names = default_class_names();
  info.config_toml = "epochs = 3\n";
  info.libtorch_version = "2.11.0";
  return info;
}

std::string read_file(const std::filesystem::path& p) {
  std::ifstream in(p, std::ios::binary);
  return {std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
}
}  // namespace

TEST_CASE("a checkpoint round-trips weights, optimizer state and info", "[checkpoint]") {
  TempDir dir;
  torch::manual_seed(0);
  auto model = make_model(ModelOptions("net"));
  Sgd sgd(model->parameters(), SgdOptions(0.1).momentum(0.9));
  model->forward(torch::randn({4, 3, 32, 32})).sum().backward();
  sgd.step(0.1);
  const auto path = dir.path() / "net.pt";
  save_checkpoint(path, sample_info(), *model, &sgd);

  const auto loaded = load_checkpoint(path);
  CHECK(loaded.info.model == "net");
  CHECK(loaded.info.epoch == 3);
  CHECK(loaded.info.global_step == 1234);
  CHECK(loaded.info.best_accuracy == Approx(0.55));
  CHECK(loaded.info.config_toml == "epochs = 3\n");
  CHECK(loaded.info.class_names == default_class_names());
  const auto a = model->named_parameters();
  const auto b = loaded.model->named_parameters();
  for (const auto& item : a) {
    INFO(item.key());
    CHECK(torch::equal(item.value(), b[item.key()]));
  }
  // The optimizer resumes with the same momentum: one more identical step
  // from both gives identical weights.
  Sgd resumed(loaded.model->parameters(), SgdOptions(0.1).momentum(0.9));
  load_optimizer_state(loaded, resumed);
  const auto x = torch::randn({4, 3, 32, 32});
  for (auto* pair : {&sgd, &resumed}) pair->zero_grad();
  model->forward(x).sum().backward();
  loaded.model->forward(x).sum().backward();
  sgd.step(0.1);
  resumed.step(0.1);
  CHECK(torch::equal(model->named_parameters()["fc3.weight"],
                     loaded.model->named_parameters()["fc3.weight"]));
}

TEST_CASE("resnet18 checkpoints keep BatchNorm buffers", "[checkpoint]") {
  TempDir dir;
  auto model = make_model(ModelOptions("resnet18"));
  model->train();
  model->forward(torch::randn({2, 3, 32, 32}));  // moves running statistics
  save_checkpoint(dir.path() / "r.pt", sample_info("resnet18"), *model, nullptr);
  const auto loaded = load_checkpoint(dir.path() / "r.pt");
  CHECK(torch::equal(model->named_buffers()["bn1.running_mean"],
                     loaded.model->named_buffers()["bn1.running_mean"]));
  Sgd sgd(loaded.model->parameters(), SgdOptions(0.1));
  CHECK_THROWS_WITH(load_optimizer_state(loaded, sgd), Catch::Contains("no optimizer state"));
}

TEST_CASE("bad checkpoints are refused with a reason", "[checkpoint]") {
  TempDir dir;
  auto model = make_model(ModelOptions("net"));
  const auto good = encode_checkpoint(sample_info(), *model, nullptr);
  auto write = [&](const std::string& bytes) {
    std::ofstream(dir.path() / "bad.pt", std::ios::binary) << bytes;
    return dir.path() / "bad.pt";
  };
  auto refuses = [&](const std::string& bytes, const std::string& reason) {
    INFO(reason);
    CHECK_THROWS_WITH(load_checkpoint(write(bytes)), Catch::Contains(reason));
  };
  CHECK_THROWS_WITH(load_checkpoint(dir.path() / "missing.pt"), Catch::Contains("does not exist"));
  CHECK_THROWS_WITH(load_checkpoint(dir.path()), Catch::Contains("is a directory"));
  refuses("", "empty");
  refuses("hello, world", "not a cifar-train checkpoint");
  refuses(std::string(4096, '\xff'), "not a cifar-train checkpoint");
  refuses(good.substr(0, 10), "not a cifar-train checkpoint");
  refuses(good.substr(0, 40), "truncated");
  refuses(good.substr(0, good.size() - 1), "truncated");
  refuses(good + "x", "damaged");
  std::string newer = good;
  newer[8] = 9;  // format version 9
  refuses(newer, "newer than this cifar-train reads");
  std::string broken_json = good;
  broken_json[16] = '!';
  refuses(broken_json, "not valid JSON");
  std::string garbage_payload = good;
  for (size_t i = garbage_payload.size() - 200; i < garbage_payload.size(); ++i) {
    garbage_payload[i] = 'z';
  }
  refuses(garbage_payload, "damaged");
  const auto resnet_header = encode_checkpoint(sample_info("resnet18"), *model, nullptr);
  refuses(resnet_header, "do not fit a resnet18 model");
}

TEST_CASE("atomic writes replace the file and leave no temporary", "[checkpoint]") {
  TempDir dir;
  const auto path = dir.path() / "f.bin";
  write_file_atomically(path, "first");
  write_file_atomically(path, "second");
  CHECK(read_file(path) == "second");
  int files = 0;
  for ([[maybe_unused]] const auto& e : std::filesystem::directory_iterator(dir.path())) ++files;
  CHECK(files == 1);
  CHECK_THROWS_WITH(write_file_atomically(dir.path() / "no" / "such" / "f.bin", "x"),
                    Catch::Contains("cannot write"));
}

TEST_CASE("ensure_writable creates folders and refuses unwritable paths", "[checkpoint]") {
  TempDir dir;
  ensure_writable(dir.path() / "a" / "b" / "c.pt");
  CHECK(std::filesystem::is_directory(dir.path() / "a" / "b"));
  test::write_bytes(dir.path() / "file", {1});
  CHECK_THROWS_WITH(ensure_writable(dir.path() / "file" / "c.pt"),
                    Catch::Contains("cannot create"));
  CHECK_THROWS_WITH(ensure_writable(dir.path() / "a"), Catch::Contains("is a directory"));
}
