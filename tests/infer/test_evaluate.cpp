// test_evaluate.cpp: test-time augmentation against views computed by hand,
// the level a checkpoint carries, and cifar-eval's report of it (its choice:
// tests/resolve/test_inference.cpp).
#include <catch2/catch.hpp>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include <algorithm>
#include <stdexcept>
#include <utility>
#include <vector>

#include "cifar/infer/evaluate.h"
#include "cifar/io/checkpoint.h"
#include "cifar/report/reporting.h"
#include "test_helpers.h"

using namespace cifar;
using cifar::test::TempDir;
namespace F = torch::nn::functional;

namespace {
// A linear map of the flattened image: the test can apply it to any view.
class LinearModel : public ClassifierImpl {
 public:
  LinearModel() { fc = register_module("fc", torch::nn::Linear(3 * 32 * 32, 10)); }
  torch::Tensor forward(torch::Tensor x) override { return fc->forward(x.flatten(1)); }
  torch::nn::Linear fc{nullptr};
};

ImageSplit random_split(int64_t n) {
  torch::manual_seed(5);
  ImageSplit d;
  d.images = torch::randint(0, 256, {n, 3, 32, 32}, torch::kUInt8);
  d.labels = torch::randint(0, 10, {n}, torch::kInt64);
  d.class_names = default_class_names();
  return d;
}

// airbench's infer(), written out with the test's own padding and slicing.
torch::Tensor expected_logits(LinearModel& model, const torch::Tensor& x, int64_t level) {
  torch::NoGradGuard no_grad;
  auto f = [&](const torch::Tensor& v) { return model.forward(v.contiguous()); };
  auto mirror = [&](const torch::Tensor& v) { return 0.5 * f(v) + 0.5 * f(torch::flip(v, {3})); };
  if (level == 0) return f(x);
  if (level == 1) return mirror(x);
  const auto p = F::pad(x, F::PadFuncOptions({1, 1, 1, 1}).mode(torch::kReflect));
  const auto a = mirror(p.slice(2, 0, 32).slice(3, 0, 32));
  const auto b = mirror(p.slice(2, 2, 34).slice(3, 2, 34));
  return 0.5 * mirror(x) + 0.5 * (0.5 * a + 0.5 * b);
}

// Level 3, batch by batch of `batch_size`: level 0, with each batch's
// ceil(B / 4) images of lowest top softmax probability (sorted by hand) at level 2.
torch::Tensor expected_selective(LinearModel& model, const torch::Tensor& x, int64_t batch_size) {
  auto out = expected_logits(model, x, 0);
  const auto full = expected_logits(model, x, 2);
  for (int64_t start = 0; start < x.size(0); start += batch_size) {
    const int64_t b = std::min(batch_size, x.size(0) - start);
    const auto top = out.slice(0, start, start + b).softmax(1).amax(1);
    std::vector<std::pair<float, int64_t>> order;
    for (int64_t i = 0; i < b; ++i) order.emplace_back(top[i].item<float>(), start + i);
    std::sort(order.begin(), order.end());
    for (int64_t i = 0; i < (b + 3) / 4; ++i) {
      const int64_t at = order[static_cast<size_t>(i)].second;
      out[at] = full[at];
    }
  }
  return out;
}

// The counts and the mean loss of logits, computed one sample at a time.
EvalResult expected_result(const torch::Tensor& logits, const torch::Tensor& labels) {
  EvalResult r;
  r.confusion.assign(100, 0);
  for (int64_t i = 0; i < labels.size(0); ++i) {
    const int64_t truth = labels[i].item<int64_t>();
    const int64_t pred = logits[i].argmax().item<int64_t>();
    ++r.confusion[static_cast<size_t>(truth * 10 + pred)];
    r.correct += truth == pred ? 1 : 0;
  }
  r.total = labels.size(0);
  r.loss = F::cross_entropy(logits, labels).item<double>();
  return r;
}

// A test_batch.bin of these images (cifar-eval reads all 10,000).
void write_test_batch(const std::filesystem::path& path, const ImageSplit& d) {
  const auto pixels = d.images.contiguous();
  std::vector<uint8_t> bytes;
  for (int64_t i = 0; i < d.size(); ++i) {
    bytes.push_back(static_cast<uint8_t>(d.labels[i].item<int64_t>()));
    const uint8_t* p = pixels[i].data_ptr<uint8_t>();
    bytes.insert(bytes.end(), p, p + 3 * 32 * 32);
  }
  cifar::test::write_bytes(path, bytes);
}

CheckpointInfo small_info(int64_t tta) {
  CheckpointInfo info;
  info.class_names = default_class_names();
  info.libtorch_version = "2.11.0";
  info.tta = tta;
  return info;
}

// 300 random test images on the CPU, a linear model drawn with seed 9, and
// the images as one normalised batch: what the TTA tests evaluate.
struct TtaCase {
  static constexpr int64_t n = 300;
  ImageSplit split = random_split(n);
  DeviceDataset data{split, torch::kCPU, Normalization{}};
  LinearModel model = [] {
    torch::manual_seed(9);
    return LinearModel();
  }();
  torch::Tensor images = data.batch(data.plan_epoch(false, false, 0, 0), 0, n).images;
};
}  // namespace

TEST_CASE("TTA levels combine the views' logits as airbench's infer() does", "[evaluate]") {
  TtaCase t;
  const int64_t n = TtaCase::n;
  auto& [split, data, model, images] = t;
  std::vector<double> losses;
  for (int64_t level = 0; level <= 2; ++level) {
    INFO("level " << level);
    const EvalResult want = expected_result(expected_logits(model, images, level), split.labels);
    for (int64_t batch_size : {n, int64_t{7}}) {  // one batch; batches with a remainder
      INFO("batch size " << batch_size);
      const EvalResult got = evaluate(model, data, {.batch_size = batch_size, .tta = level});
      CHECK(got.tta == level);
      CHECK(got.total == n);
      CHECK(got.correct == want.correct);
      CHECK(got.confusion == want.confusion);
      CHECK(got.loss == Approx(want.loss).epsilon(1e-5));
    }
    losses.push_back(want.loss);
  }
  // The levels differ, so the comparisons above tell them apart.
  CHECK(losses[0] != Approx(losses[1]).epsilon(1e-4));
  CHECK(losses[1] != Approx(losses[2]).epsilon(1e-4));
  // The positional form: level 0 by default, the trailing level otherwise.
  const EvalResult plain = evaluate(model, data, 50);
  CHECK(plain.tta == 0);
  CHECK(plain.confusion == evaluate(model, data, {.batch_size = 50}).confusion);
  const EvalResult two = evaluate(model, data, 50, Precision{}, 10, nullptr, nullptr, 2);
  CHECK(two.confusion == evaluate(model, data, {.batch_size = 50, .tta = 2}).confusion);
  // resolve/ refuses --tta outside 0..3: here it is an impossible input.
  CHECK_THROWS_AS(evaluate(model, data, {.batch_size = 50, .tta = 4}), std::invalid_argument);
}

TEST_CASE("TTA level 3 applies level 2 to the least sure quarter of each batch", "[evaluate]") {
  TtaCase t;
  const int64_t n = TtaCase::n;
  auto& [split, data, model, images] = t;
  for (const int64_t batch_size : {n, int64_t{7}, int64_t{1}}) {
    INFO("batch size " << batch_size);
    const EvalResult want =
        expected_result(expected_selective(model, images, batch_size), split.labels);
    const EvalResult got = evaluate(model, data, {.batch_size = batch_size, .tta = 3});
    CHECK(got.tta == 3);
    CHECK(got.correct == want.correct);
    CHECK(got.confusion == want.confusion);
    CHECK(got.loss == Approx(want.loss).epsilon(1e-5));
  }
  // It differs from level 0 and from level 2, so the comparisons tell them apart.
  const auto zero = expected_result(expected_logits(model, images, 0), split.labels);
  const auto two = expected_result(expected_logits(model, images, 2), split.labels);
  const auto three = expected_result(expected_selective(model, images, n), split.labels);
  CHECK(three.loss != Approx(zero.loss).epsilon(1e-4));
  CHECK(three.loss != Approx(two.loss).epsilon(1e-4));
}

TEST_CASE("TTA keeps a channels-last batch's results", "[evaluate]") {
  const auto split = random_split(40);
  const DeviceDataset nchw(split, torch::kCPU, Normalization{});
  const DeviceDataset nhwc(split, torch::kCPU, Normalization{}, /*channels_last=*/true);
  torch::manual_seed(3);
  LinearModel model;
  const auto a = evaluate(model, nchw, {.batch_size = 40, .tta = 2});
  const auto b = evaluate(model, nhwc, {.batch_size = 40, .tta = 2});
  CHECK(a.confusion == b.confusion);
  CHECK(a.loss == Approx(b.loss).epsilon(1e-5));
}

TEST_CASE("a checkpoint carries its TTA level, and older files read 0", "[evaluate][checkpoint]") {
  TempDir dir;
  auto model = make_model(ModelOptions("net"));
  save_checkpoint(dir.path() / "two.pt", small_info(2), *model, nullptr);
  CHECK(load_checkpoint(dir.path() / "two.pt").info.tta == 2);
  CHECK(peek_checkpoint_info(dir.path() / "two.pt")->tta == 2);

  nlohmann::json j = to_json(small_info(1));
  CHECK(j.at("tta") == 1);
  CHECK(checkpoint_info_from_json(j, "one.pt").tta == 1);
  j["tta"] = 3;  // selective
  CHECK(checkpoint_info_from_json(j, "three.pt").tta == 3);
  j.erase("tta");  // a file written before test-time augmentation
  CHECK(checkpoint_info_from_json(j, "old.pt").tta == 0);
  for (const nlohmann::json& bad : {nlohmann::json(4), nlohmann::json(-1), nlohmann::json("2")}) {
    j["tta"] = bad;
    CHECK_THROWS_WITH(checkpoint_info_from_json(j, "odd.pt"),
                      Catch::Contains("odd.pt") && Catch::Contains("\"tta\""));
  }
}

TEST_CASE("cifar-eval evaluates at its run's TTA level", "[evaluate]") {
  TempDir dir;
  write_test_batch(dir.path() / "test_batch.bin", random_split(10000));
  torch::manual_seed(4);
  auto model = make_model(ModelOptions("net"));
  const auto file = dir.path() / "net.pt";
  save_checkpoint(file, small_info(1), *model, nullptr);
  const DeviceDataset test_data(read_cifar10(dir.path(), Split::kTest), torch::kCPU,
                                Normalization{});

  // The level resolve_eval chooses (resolve/inference.h): the checkpoint's
  // (1), then --tta 0.
  const auto run_at = [&](int64_t tta) {
    return EvalRun{.test = read_cifar10(dir.path(), Split::kTest),
                   .batch_size = 500,
                   .progress_bar = false,
                   .checkpoint = load_checkpoint(file),
                   .tta = tta,
                   .tta_source = fmt::format("level {}", tta),
                   .machine = Machine{},       // the CPU, one thread
                   .precision = Precision{}};  // float32
  };
  const EvalReport from_file = evaluate_checkpoint(run_at(1));
  const EvalReport chosen = evaluate_checkpoint(run_at(0));
  CHECK(from_file.result.tta == 1);
  CHECK(chosen.result.tta == 0);
  for (const EvalResult& r : {from_file.result, chosen.result}) {
    INFO("level " << r.tta);
    const EvalResult direct = evaluate(*model, test_data, {.batch_size = 500, .tta = r.tta});
    CHECK(r.confusion == direct.confusion);
    CHECK(r.loss == Approx(direct.loss).epsilon(1e-5));
  }
  CHECK(from_file.result.loss != chosen.result.loss);  // the levels are told apart

  // The level is in both of cifar-eval's reports.
  const auto json =
      nlohmann::json::parse(eval_to_json(from_file.result, "net", "cpu", from_file.class_names));
  CHECK(json.at("tta") == 1);
  CHECK_THAT(format_confusion(from_file.result, from_file.class_names),
             Catch::StartsWith("Test-time augmentation: level 1 ("));
}
