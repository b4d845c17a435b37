// The run folder's writes at an epoch's end, when they fail.
#include <catch2/catch.hpp>

#include <filesystem>
#include <fstream>
#include <optional>
#include <vector>

#include "cifar/report/run_outputs.h"
#include "test_helpers.h"

namespace fs = std::filesystem;

TEST_CASE("a write that fails at an epoch's end says how to go on from the last checkpoint",
          "[run_outputs]") {
  cifar::test::TempDir dir;
  const fs::path run = dir.path() / "run";
  fs::create_directories(run);
  std::optional<cifar::RunOutputs> held;
  cifar::RunOutputs& outputs = held.emplace(
      run, dir.path() / "m.pt", "epochs = 3\n", /*tensorboard=*/true,
      /*flush_every_s=*/10, std::nullopt, /*overwrite=*/false, std::vector<cifar::NamedFile>{});
  cifar::EpochMetrics metrics;
  metrics.epoch = 1;
  outputs.epoch_done(metrics, nullptr, {"a", "b"}, "epoch 1", /*best=*/false);
  metrics.epoch = 2;
  fs::create_directories(run / "best.pt");  // a best.pt that cannot be written
  REQUIRE_THROWS_WITH(outputs.epoch_done(metrics, nullptr, {"a", "b"}, "epoch 2", /*best=*/true),
                      Catch::Contains("best.pt") &&
                          Catch::Contains("fix that, then go on from its last checkpoint with: "
                                          "cifar-train --config " +
                                          (run / "config.toml").string() + " --resume " +
                                          (run / "last.pt").string()));
  // last.pt is still epoch 1's: the resume trains epoch 2 again and writes its best.pt.
  std::ifstream last(run / "last.pt", std::ios::binary);
  CHECK(cifar::test::read_all(last) == "epoch 1");
  fs::remove(run / "last.pt");  // as if the first checkpoint had failed: none there
  fs::create_directories(run / "last.pt");
  metrics.epoch = 3;
  REQUIRE_THROWS_WITH(
      outputs.epoch_done(metrics, nullptr, {"a", "b"}, "epoch 3", /*best=*/false),
      Catch::Contains("the run stops before its first checkpoint") && !Catch::Contains("--resume"));
  // The failed epochs' TensorBoard records are dropped, not left for the
  // resumed run to write again.
  held.reset();
  for (const auto& entry : fs::directory_iterator(run)) {
    if (entry.path().filename().string().starts_with("events.out.tfevents.")) {
      std::ifstream in(entry.path(), std::ios::binary);
      const std::string events = cifar::test::read_all(in);
      const auto first = events.find("epoch/train_loss");  // epoch 1's only
      CHECK(first != std::string::npos);
      CHECK(events.find("epoch/train_loss", first + 1) == std::string::npos);
    }
  }
}
