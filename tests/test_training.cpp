// test_training.cpp: the training loop learns, evaluation counts right, and
// the whole job writes what it promises (on small synthetic data).
#include <catch2/catch.hpp>

#include <fstream>

#include "cifar/checkpoint.h"
#include "cifar/errors.h"
#include "cifar/training.h"
#include "test_helpers.h"

using namespace cifar;
using cifar::test::TempDir;

namespace {
// An easy synthetic task: the label is written into the image's brightness
// pattern (class c has a bright row band at position c), plus noise.
Cifar10Dataset synthetic(int64_t n, uint64_t seed) {
  torch::manual_seed(seed);
  Cifar10Dataset d;
  d.labels = torch::randint(0, 10, {n}, torch::kInt64);
  auto images = torch::randint(0, 60, {n, 3, 32, 32}, torch::kInt64);
  for (int64_t i = 0; i < n; ++i) {
    const int64_t c = d.labels[i].item<int64_t>();
    images[i].slice(1, 3 * c, 3 * c + 3) += 120;
  }
  d.images = images.to(torch::kUInt8);
  d.class_names = default_class_names();
  return d;
}

EpochSettings settings_for(int64_t epochs, int64_t batch, double lr) {
  EpochSettings s;
  s.epochs = epochs;
  s.batch_size = batch;
  s.schedule = ScheduleOptions{Schedule::kConstant, lr, 0.0, epochs, 1};
  return s;
}
}  // namespace

TEST_CASE("train_one_epoch lowers the loss on a learnable task", "[training]") {
  const DeviceDataset train(synthetic(512, 1), torch::kCPU, Normalization{});
  const DeviceDataset test(synthetic(200, 2), torch::kCPU, Normalization{});
  torch::manual_seed(0);
  auto model = make_model(ModelOptions("net"));
  Sgd sgd(model->parameters(), SgdOptions(0.01).momentum(0.9));
  const auto before = evaluate(*model, test, 100);
  std::vector<double> losses;
  for (int64_t epoch = 1; epoch <= 6; ++epoch) {
    auto s = settings_for(6, 16, 0.01);
    s.epoch = epoch;
    const auto stats =
        train_one_epoch(*model, sgd, train, train.plan_epoch(true, false, 0, epoch), s);
    CHECK(stats.images == 512);
    CHECK(stats.steps == 32);
    losses.push_back(stats.loss);
  }
  const auto after = evaluate(*model, test, 100);
  INFO("losses " << losses.front() << " -> " << losses.back());
  CHECK(losses.back() < 0.5 * losses.front());
  CHECK(after.loss < before.loss);
  CHECK(after.accuracy() > 0.8);
}

TEST_CASE("evaluate counts a confusion matrix", "[training]") {
  const auto data = synthetic(50, 3);
  const DeviceDataset test(data, torch::kCPU, Normalization{});
  auto model = make_model(ModelOptions("net"));
  const auto r = evaluate(*model, test, 7);  // a batch size that leaves a remainder
  CHECK(r.total == 50);
  int64_t sum = 0;
  for (auto v : r.confusion) sum += v;
  CHECK(sum == 50);
  // Row sums are the true label counts.
  for (int64_t c = 0; c < 10; ++c) {
    int64_t row = 0;
    for (int64_t p = 0; p < 10; ++p) row += r.confusion[c * 10 + p];
    CHECK(row == data.labels.eq(c).sum().item<int64_t>());
  }
  CHECK(r.correct <= r.total);
}

TEST_CASE("a non-finite loss stops training with a clear message", "[training]") {
  const DeviceDataset train(synthetic(64, 4), torch::kCPU, Normalization{});
  auto model = make_model(ModelOptions("net"));
  {
    torch::NoGradGuard no_grad;
    model->named_parameters()["fc3.bias"].fill_(std::numeric_limits<float>::quiet_NaN());
  }
  Sgd sgd(model->parameters(), SgdOptions(0.1));
  CHECK_THROWS_WITH(train_one_epoch(*model, sgd, train, train.plan_epoch(true, false, 0, 1),
                                    settings_for(1, 16, 0.1)),
                    Catch::Contains("loss became NaN") && Catch::Contains("Lower --lr"));
}

TEST_CASE("configuration is validated before anything runs", "[training]") {
  auto bad = [](auto mutate, const std::string& message) {
    TrainConfig c;
    mutate(c);
    INFO(message);
    CHECK_THROWS_AS(validate(c), UsageError);
    CHECK_THROWS_WITH(validate(c), Catch::Contains(message));
  };
  bad([](TrainConfig& c) { c.epochs = 0; }, "--epochs must be at least 1, got 0");
  bad([](TrainConfig& c) { c.batch_size = -3; }, "--batch-size must be at least 1, got -3");
  bad([](TrainConfig& c) { c.lr = 0; }, "--lr must be positive");
  bad([](TrainConfig& c) { c.threads = -1; }, "--threads");
  bad([](TrainConfig& c) { c.model = "vgg"; }, "unknown model 'vgg'");
  bad([](TrainConfig& c) { c.device = "gpu0"; }, "not a device");
  bad([](TrainConfig& c) { c.schedule = "linear"; }, "unknown schedule");
  bad([](TrainConfig& c) { c.amp = "fp16"; }, "use --amp bf16");
  bad([](TrainConfig& c) { c.amp = "fp8"; }, "unknown --amp");
  bad([](TrainConfig& c) { c.label_smoothing = 1.5; }, "--label-smoothing");
  TrainConfig ok;
  CHECK_NOTHROW(validate(ok));
}

TEST_CASE("train() writes checkpoints, metrics and config, and resumes", "[training]") {
  TempDir data_dir;
  TempDir out;
  // Full-size files are needed by the default reader: write a real-format
  // data set of 10,000 synthetic records per file.
  const auto split = synthetic(10000, 5);
  std::vector<uint8_t> records;
  records.reserve(10000 * kRecordBytes);
  const auto images = split.images.contiguous();
  for (int64_t i = 0; i < 10000; ++i) {
    records.push_back(static_cast<uint8_t>(split.labels[i].item<int64_t>()));
    const uint8_t* p = images.data_ptr<uint8_t>() + i * kImageBytes;
    records.insert(records.end(), p, p + kImageBytes);
  }
  for (const auto& name : batch_file_names(Split::kTrain))
    test::write_bytes(data_dir.path() / name, records);
  test::write_bytes(data_dir.path() / "test_batch.bin", records);

  TrainConfig c;
  c.model = "net";
  c.data_dir = data_dir.path().string();
  c.device = "cpu";
  c.train_limit = 2000;
  c.epochs = 2;
  c.batch_size = 50;
  c.lr = 0.02;
  c.eval_batch_size = 2000;
  c.run_dir = (out.path() / "run").string();
  c.checkpoint = (out.path() / "model.pt").string();
  const auto result = train(c);
  REQUIRE(result.history.size() == 2);
  CHECK(result.final_eval.total == 10000);
  CHECK(std::filesystem::exists(out.path() / "model.pt"));
  CHECK(std::filesystem::exists(out.path() / "run" / "last.pt"));
  CHECK(std::filesystem::exists(out.path() / "run" / "best.pt"));
  CHECK(std::filesystem::exists(out.path() / "run" / "config.toml"));
  std::ifstream csv(out.path() / "run" / "metrics.csv");
  int lines = 0;
  for (std::string line; std::getline(csv, line);) ++lines;
  CHECK(lines == 3);  // header + 2 epochs

  const auto saved = load_checkpoint(out.path() / "model.pt");
  CHECK(saved.info.epoch == 2);
  CHECK(saved.info.test_accuracy == Approx(result.final_eval.accuracy()));

  // Resuming a finished run needs more epochs; with them it continues at 3.
  TrainConfig more = c;
  more.resume = c.checkpoint;
  CHECK_THROWS_WITH(train(more), Catch::Contains("already trained 2 epochs"));
  more.epochs = 3;
  more.run_dir = (out.path() / "run2").string();
  const auto resumed = train(more);
  REQUIRE(resumed.history.size() == 1);
  CHECK(resumed.history[0].epoch == 3);
  more.model = "resnet18";
  CHECK_THROWS_WITH(train(more), Catch::Contains("holds a net model, but --model is resnet18"));
}

TEST_CASE("GPU: data and model on the device; CUDA-graph and bf16 steps train", "[cuda]") {
  if (!torch::cuda::is_available()) {
    WARN("skipped: no CUDA device on this machine");
    return;
  }
  const torch::Device gpu(torch::kCUDA, 0);
  const DeviceDataset data(synthetic(512, 1), gpu, Normalization{});
  REQUIRE(data.device().is_cuda());
  REQUIRE(data.labels().is_cuda());
  auto run = [&](bool graph, AmpMode amp) {
    torch::manual_seed(0);
    auto model = make_model(ModelOptions("net"));
    model->to(gpu);
    Sgd sgd(model->parameters(), SgdOptions(0.01).momentum(0.9));
    auto s = settings_for(1, 64, 0.01);
    s.cuda_graph = graph;
    s.amp = amp;
    const auto stats = train_one_epoch(*model, sgd, data, data.plan_epoch(true, false, 0, 1), s);
    return std::make_pair(stats, model);
  };
  const auto [eager, eager_model] = run(false, AmpMode::kOff);
  const auto [graphed, graphed_model] = run(true, AmpMode::kOff);
  CHECK(eager.images == 512);
  CHECK(graphed.images == 512);  // 512 / 64: no partial batch to drop
  CHECK(eager.peak_memory_bytes > 0);
  CHECK(eager.seconds > 0);
  CHECK(graphed.loss == Approx(eager.loss).epsilon(1e-3));
  CHECK(torch::allclose(eager_model->named_parameters()["fc3.weight"],
                        graphed_model->named_parameters()["fc3.weight"], 1e-3, 1e-4));
  const auto [bf16, bf16_model] = run(false, AmpMode::kBf16);
  CHECK(std::isfinite(bf16.loss));
  const auto result = evaluate(*bf16_model, data, 256, AmpMode::kBf16);
  CHECK(result.total == 512);
}
