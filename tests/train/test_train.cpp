// test_train.cpp: the whole job writes what it promises, resumes, and leaves
// the process as it found it (on small synthetic data in the real format).
#include <catch2/catch.hpp>

#include <fmt/format.h>

#include <fstream>

#include "cifar/core/errors.h"
#include "cifar/io/checkpoint.h"
#include "cifar/resolve/run_data.h"
#include "cifar/resolve/run_spec.h"
#include "cifar/train/train.h"
#include "test_helpers.h"
#include "train/small_run.h"

using namespace cifar;
using cifar::test::TempDir;

TEST_CASE("train() writes checkpoints, metrics and config, and resumes", "[train]") {
  TempDir data_dir;
  TempDir out;
  test::write_full_cifar(data_dir.path(), test::synthetic(10000, 5));

  TrainConfig c = test::small_run(data_dir.path(), out.path(), 2000, /*epochs=*/2, /*lr=*/0.02);
  const int threads = torch::get_num_threads();
  const bool onednn = at::globalContext().userEnabledMkldnn();
  RunEnv env;
  env.machine.hardware_threads = 2;
  const auto result = train(c, env);
  REQUIRE(result.history.size() == 2);
  CHECK(result.final_eval.total == 10000);
  CHECK(torch::get_num_threads() == threads);
  CHECK(at::globalContext().userEnabledMkldnn() == onednn);
  CHECK(std::filesystem::exists(out.path() / "model.pt"));
  CHECK(std::filesystem::exists(out.path() / "run" / "last.pt"));
  CHECK(std::filesystem::exists(out.path() / "run" / "best.pt"));
  std::ifstream csv(out.path() / "run" / "metrics.csv");
  int lines = 0;
  for (std::string line; std::getline(csv, line);) ++lines;
  CHECK(lines == 3);  // header + 2 epochs
  // The saved settings name the data folder absolutely.
  std::ifstream config(out.path() / "run" / "config.toml");
  const std::string toml = test::read_all(config);
  CHECK_THAT(toml, Catch::Contains(fmt::format("data = \"{}\"", data_dir.path().string())));

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

TEST_CASE("bad data leaves no run folder behind", "[train]") {
  TempDir out;
  TrainConfig c;
  c.data_dir = (out.path() / "no-such-data").string();
  c.run_dir = (out.path() / "run").string();
  c.checkpoint = (out.path() / "m.pt").string();
  CHECK_THROWS_WITH(train(c), Catch::Contains("does not exist"));
  CHECK_FALSE(std::filesystem::exists(out.path() / "run"));
}

TEST_CASE("a validation split (--val-split) is held out, reported, and chooses best.pt",
          "[train]") {
  TempDir data_dir;
  TempDir out;
  test::write_full_cifar(data_dir.path(), test::synthetic(10000, 9));
  TrainConfig c = test::small_run(data_dir.path(), out.path(), 1000, /*epochs=*/3, /*lr=*/0.005);
  c.val_split = 500;
  RunEnv env;
  env.machine.hardware_threads = 2;
  const auto result = train(c, env);
  REQUIRE(result.history.size() == 3);
  double best_val = -1, best_test = -1;
  int64_t best_epoch = 0;
  for (const auto& m : result.history) {
    REQUIRE(m.has_validation());
    if (m.val_accuracy > best_val) {
      best_val = m.val_accuracy;
      best_epoch = m.epoch;
    }
    best_test = std::max(best_test, m.test_accuracy);
  }
  INFO("best validation " << best_val << " in epoch " << best_epoch << ", best test " << best_test);
  const auto best = load_checkpoint(out.path() / "run" / "best.pt");
  CHECK(best.info.epoch == best_epoch);
  CHECK(best.info.best_accuracy == Approx(best_val));
  CHECK(best_val != Approx(best_test));  // else this test could not tell the two apart

  std::ifstream csv(out.path() / "run" / "metrics.csv");
  std::string header, row;
  std::getline(csv, header);
  std::getline(csv, row);
  CHECK_THAT(header, Catch::EndsWith(",val_loss,val_accuracy"));
  CHECK_THAT(row, Catch::EndsWith(fmt::format("{:.6f}", result.history[0].val_accuracy)));

  c.val_split = 10000 * 5;  // nothing left to train on
  c.run_dir = (out.path() / "run2").string();
  CHECK_THROWS_AS(train(c, env), UsageError);
}

TEST_CASE("checkpoints record their training data, and a mid-epoch resume holds to it", "[train]") {
  TempDir data_dir;
  TempDir out;
  test::write_full_cifar(data_dir.path(), test::synthetic(10000, 5));
  const TrainConfig c = test::small_run(data_dir.path(), out.path(), 2000, 1, 0.02);
  RunEnv env;
  env.machine.hardware_threads = 2;
  train(c, env);
  LoadedCheckpoint saved = load_checkpoint(c.checkpoint);
  CHECK(saved.info.train_images == 2000);
  CHECK(saved.info.train_fingerprint.size() == 64);  // SHA-256, hex

  // The same settings on other images of the same count, in the middle of
  // epoch 1 (the header says so): refused before anything is written.
  saved.info.epoch = 0;
  saved.info.step_in_epoch = 3;
  save_checkpoint(out.path() / "mid.pt", saved.info, *saved.model, nullptr);
  test::write_full_cifar(data_dir.path(), test::synthetic(10000, 6));
  TrainConfig more = c;
  more.resume = (out.path() / "mid.pt").string();
  more.run_dir = (out.path() / "run2").string();
  CHECK_THROWS_WITH(train(more, env),
                    Catch::Contains("stopped in epoch 1 after step 3") &&
                        Catch::Contains("cannot be trained on other data") &&
                        Catch::Contains("the same number of training images (2000)"));
  CHECK_FALSE(std::filesystem::exists(out.path() / "run2"));
}

TEST_CASE("the training data's fingerprint changes with any image, label or order", "[train]") {
  const ImageSplit split = test::synthetic(50, 3);
  const std::string base = train_data_fingerprint(split);
  CHECK(train_data_fingerprint(ImageSplit{split.images.clone(), split.labels.clone(), {}}) == base);
  std::vector<ImageSplit> others;
  others.push_back({split.images.narrow(0, 0, 49), split.labels.narrow(0, 0, 49), {}});
  const torch::Tensor swapped = torch::arange(50).roll(1);
  others.push_back(
      {split.images.index_select(0, swapped), split.labels.index_select(0, swapped), {}});
  others.push_back({split.images.clone(), split.labels.clone(), {}});
  others.back().labels[7] = (others.back().labels[7].item<int64_t>() + 1) % 10;
  others.push_back({split.images.clone(), split.labels.clone(), {}});
  others.back().images[9][2][31][31] += 1;
  for (const ImageSplit& other : others) CHECK(train_data_fingerprint(other) != base);
}
