// test_checkpoint.cpp: round trips, and every kind of bad checkpoint file.
#include <catch2/catch.hpp>

#include <spdlog/sinks/ringbuffer_sink.h>
#include <spdlog/spdlog.h>

#include <fstream>
#include <limits>

#include "cifar/core/errors.h"
#include "cifar/formats/checksum.h"
#include "cifar/io/checkpoint.h"
#include "cifar/optim/optim.h"
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

// A net and its SGD (momentum 0.9) after one step on a random batch, so
// that the momentum buffers are not zeros.
struct SteppedNet {
  Classifier model = make_model(ModelOptions("net"));
  Sgd sgd{model->parameters(), SgdOptions().momentum(0.9)};
  SteppedNet() {
    model->forward(torch::randn({4, 3, 32, 32})).sum().backward();
    sgd.step(0.1);
  }
};

std::string read_file(const std::filesystem::path& p) {
  std::ifstream in(p, std::ios::binary);
  return test::read_all(in);
}
}  // namespace

TEST_CASE("a checkpoint round-trips weights, optimizer state and info", "[checkpoint]") {
  TempDir dir;
  torch::manual_seed(0);
  SteppedNet stepped;
  auto& [model, sgd] = stepped;
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
  Sgd resumed(loaded.model->parameters(), SgdOptions().momentum(0.9));
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
  Sgd sgd(loaded.model->parameters(), SgdOptions());
  CHECK_THROWS_WITH(load_optimizer_state(loaded, sgd), Catch::Contains("no optimizer state"));
}

TEST_CASE("a checkpoint whose weights hold NaN is refused, naming the tensor", "[checkpoint]") {
  TempDir dir;
  auto model = make_model(ModelOptions("net"));
  {
    torch::NoGradGuard no_grad;
    model->named_parameters()["fc3.bias"][4] = std::numeric_limits<float>::quiet_NaN();
  }
  save_checkpoint(dir.path() / "nan.pt", sample_info(), *model, nullptr);
  CHECK_THROWS_WITH(load_checkpoint(dir.path() / "nan.pt"),
                    Catch::Contains("nan.pt") && Catch::Contains("fc3.bias (1 of 10)") &&
                        Catch::Contains("NaN or infinite"));
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
  CHECK_THROWS_WITH(load_checkpoint("/dev/zero"), Catch::Contains("not a regular file"));
  refuses("", "empty");
  refuses("hello, world", "not a cifar-train checkpoint");
  refuses(std::string(4096, '\xff'), "not a cifar-train checkpoint");
  refuses(good.substr(0, 10), "not a cifar-train checkpoint");
  refuses(good.substr(0, 40), "truncated");
  refuses(good.substr(0, good.size() - 1), "truncated");
  refuses(good + "x", "damaged");
  std::string broken_json = good;
  broken_json[16] = '!';
  refuses(broken_json, "damaged");
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
  CHECK_THROWS_WITH(ensure_writable(dir.path() / "a"), Catch::Contains("is a folder, not a file"));
  // A folder named as a file is the user's to fix (exit 2), in every tool.
  CHECK_THROWS_AS(ensure_writable(dir.path() / "a"), UsageError);
  // An output an option names: the option named, its folder never made.
  CHECK_THROWS_WITH(ensure_writable(dir.path() / "a", "--csv", false),
                    Catch::StartsWith("--csv ") && Catch::Contains("a/predictions.csv"));
  CHECK_THROWS_WITH(ensure_writable(dir.path() / "x" / "c.csv", "--csv", false),
                    Catch::Contains("(its folder") && Catch::Contains("does not exist); choose a "
                                                                      "writable --csv"));
  CHECK_FALSE(std::filesystem::exists(dir.path() / "x"));
}

namespace {
void set_version(std::string& bytes, uint32_t v) {
  for (size_t i = 0; i < 4; ++i) bytes[8 + i] = static_cast<char>((v >> (8 * i)) & 0xff);
}
// Replaces the SHA-256 trailer with the right one for the bytes before it.
void reseal(std::string& bytes) {
  const size_t body = bytes.size() - kChecksumBytes;
  const auto d = sha256(std::span(reinterpret_cast<const uint8_t*>(bytes.data()), body));
  bytes.replace(body, kChecksumBytes, reinterpret_cast<const char*>(d.data()), d.size());
}
}  // namespace

TEST_CASE("one changed byte anywhere in a checkpoint is reported as damage", "[checkpoint]") {
  TempDir dir;
  torch::manual_seed(0);
  SteppedNet stepped;
  auto& [model, sgd] = stepped;
  const auto good = encode_checkpoint(sample_info(), *model, &sgd);
  const auto path = dir.path() / "flipped.pt";
  // Every byte after the magic: the version field, the header, the payload
  // (weights and momentum buffers) and the checksum itself; for the long
  // payload, every 997th byte and the last ones.
  std::vector<size_t> positions;
  for (size_t i = 8; i < good.size();
       i += (i < 2000 || i + 2000 > good.size()) ? size_t{1} : size_t{997}) {
    positions.push_back(i);
  }
  for (size_t i : positions) {
    std::string bad = good;
    bad[i] = static_cast<char>(bad[i] ^ (1 << (i % 8)));
    std::ofstream(path, std::ios::binary) << bad;
    INFO("byte " << i << " of " << good.size());
    CHECK_THROWS_WITH(load_checkpoint(path), Catch::Contains("checkpoint " + path.string()) &&
                                                 Catch::Contains("damaged") &&
                                                 !Catch::Contains("upgrade"));
  }
}

TEST_CASE("an edit of the JSON header that stays valid JSON is damage", "[checkpoint]") {
  TempDir dir;
  auto model = make_model(ModelOptions("net"));
  std::string bytes = encode_checkpoint(sample_info(), *model, nullptr);
  const auto at = bytes.find("0.4914");
  REQUIRE(at != std::string::npos);
  bytes[at + 5] = '5';  // mean 0.4915: still a well-formed header
  std::ofstream(dir.path() / "edited.pt", std::ios::binary) << bytes;
  CHECK_THROWS_WITH(
      load_checkpoint(dir.path() / "edited.pt"),
      Catch::Contains("edited.pt is damaged") && Catch::Contains("checksum does not match"));
}

TEST_CASE("only a plausible newer version is called newer", "[checkpoint]") {
  TempDir dir;
  auto model = make_model(ModelOptions("net"));
  const auto good = encode_checkpoint(sample_info(), *model, nullptr);
  auto message = [&](const std::string& bytes) {
    std::ofstream(dir.path() / "v.pt", std::ios::binary) << bytes;
    try {
      load_checkpoint(dir.path() / "v.pt");
    } catch (const std::runtime_error& e) {
      return std::string(e.what());
    }
    return std::string("loaded");
  };
  // A damaged version field of a current file, to any value: damaged.
  for (uint32_t v : {0u, 1u, 3u, 9u, 27905u, 0xffffffffu}) {
    std::string bad = good;
    set_version(bad, v);
    INFO("version " << v);
    CHECK_THAT(message(bad), Catch::Contains("is damaged") &&
                                 Catch::Contains("version field reads " + std::to_string(v)) &&
                                 !Catch::Contains("upgrade"));
  }
  // A well-formed file of the next version: newer.
  std::string next = good;
  set_version(next, kCheckpointFormatVersion + 1);
  reseal(next);
  CHECK_THAT(message(next),
             Catch::Contains("newer than this cifar-train reads") && Catch::Contains("upgrade"));
  // Any other version on bytes that are not ours: not called newer.
  std::string far = next;
  set_version(far, 27905);
  reseal(far);
  CHECK_THAT(message(far), Catch::Contains("damaged or not a cifar-train checkpoint") &&
                               !Catch::Contains("upgrade"));
}

TEST_CASE("version-1 checkpoints still load, with a warning that they cannot be verified",
          "[checkpoint]") {
  TempDir dir;
  auto model = make_model(ModelOptions("net"));
  std::string v1 = encode_checkpoint(sample_info(), *model, nullptr);
  v1.resize(v1.size() - kChecksumBytes);
  set_version(v1, 1);
  std::ofstream(dir.path() / "old.pt", std::ios::binary) << v1;

  auto sink = std::make_shared<spdlog::sinks::ringbuffer_sink_mt>(16);
  auto previous = spdlog::default_logger();
  spdlog::set_default_logger(std::make_shared<spdlog::logger>("test", sink));
  const auto loaded = load_checkpoint(dir.path() / "old.pt");
  spdlog::set_default_logger(previous);
  CHECK_FALSE(loaded.header.verified);
  CHECK(loaded.info.epoch == 3);
  CHECK(loaded.info.run_id.empty());
  CHECK(loaded.info.world_size == 1);
  const auto lines = sink->last_formatted();
  REQUIRE(lines.size() == 1);
  CHECK_THAT(lines[0], Catch::Contains("old.pt has format version 1") &&
                           Catch::Contains("cannot be verified"));

  const auto v2 = load_checkpoint([&] {
    save_checkpoint(dir.path() / "new.pt", sample_info(), *model, nullptr);
    return dir.path() / "new.pt";
  }());
  CHECK(v2.header.verified);
}

TEST_CASE("the run identity and world size round-trip and the header can be read alone",
          "[checkpoint]") {
  TempDir dir;
  auto model = make_model(ModelOptions("net"));
  CheckpointInfo info = sample_info();
  info.run_id = "/runs/a started 2026-11-22T07:00:00.000001Z pid 42";
  info.world_size = 4;
  const std::string bytes = encode_checkpoint(info, *model, nullptr);
  std::ofstream(dir.path() / "a.pt", std::ios::binary) << bytes;
  CHECK(load_checkpoint(dir.path() / "a.pt").info.run_id == info.run_id);
  CHECK(load_checkpoint(dir.path() / "a.pt").info.world_size == 4);
  // peek_checkpoint_info reads the header only: it works on a file whose
  // payload is cut off, which load_checkpoint refuses.
  std::ofstream(dir.path() / "cut.pt", std::ios::binary) << bytes.substr(0, bytes.size() / 2);
  const auto peeked = peek_checkpoint_info(dir.path() / "cut.pt");
  REQUIRE(peeked);
  CHECK(peeked->run_id == info.run_id);
  CHECK(peeked->epoch == 3);
  CHECK_FALSE(peek_checkpoint_info(dir.path() / "missing.pt"));
  std::ofstream(dir.path() / "junk.pt", std::ios::binary) << "hello";
  CHECK_THROWS_WITH(peek_checkpoint_info(dir.path() / "junk.pt"),
                    Catch::Contains("not a cifar-train checkpoint"));
}

TEST_CASE("a mid-epoch checkpoint carries the figures of the epoch so far", "[checkpoint]") {
  TempDir dir;
  torch::manual_seed(0);
  SteppedNet stepped;
  CheckpointInfo info = sample_info();
  info.step_in_epoch = 5;
  info.epoch_so_far = {
      .images = 80, .loss_sum = 150.5, .correct = 21, .seconds = 1.25, .skipped_steps = 1};
  save_checkpoint(dir.path() / "mid.pt", info, *stepped.model, &stepped.sgd);
  CHECK(load_checkpoint(dir.path() / "mid.pt").info.epoch_so_far == info.epoch_so_far);
  info.step_in_epoch = 0;  // at an epoch's end there is nothing to carry
  save_checkpoint(dir.path() / "end.pt", info, *stepped.model, &stepped.sgd);
  CHECK(load_checkpoint(dir.path() / "end.pt").info.epoch_so_far == EpochSoFar{});
}
