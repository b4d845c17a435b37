// test_train.cpp: the whole job writes what it promises, resumes, and leaves
// the process as it found it (on small synthetic data in the real format).
#include <catch2/catch.hpp>

#include <fmt/format.h>

#include <fstream>

#include "cifar/checkpoint.h"
#include "cifar/errors.h"
#include "cifar/train.h"
#include "test_helpers.h"

using namespace cifar;
using cifar::test::TempDir;

TEST_CASE("train() writes checkpoints, metrics and config, and resumes", "[train]") {
  TempDir data_dir;
  TempDir out;
  test::write_full_cifar(data_dir.path(), test::synthetic(10000, 5));

  TrainConfig c;
  c.model = "net";
  c.data_dir = data_dir.path().string();
  c.device = parse_device("cpu");
  c.train_limit = 2000;
  c.epochs = 2;
  c.batch_size = 50;
  c.lr = 0.02;
  c.eval_batch_size = 2000;
  c.run_dir = (out.path() / "run").string();
  c.checkpoint = (out.path() / "model.pt").string();
  const int threads = torch::get_num_threads();
  const bool onednn = at::globalContext().userEnabledMkldnn();
  RunEnv env;
  env.hardware_threads = 2;
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
  const std::string toml((std::istreambuf_iterator<char>(config)), {});
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
