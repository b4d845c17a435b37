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
  fs::create_directories(run / "best.pt");  // a best.pt that cannot be written
  REQUIRE_THROWS_WITH(outputs.epoch_done(metrics, nullptr, {"a", "b"}, "epoch 1", /*best=*/true),
                      Catch::Contains("best.pt") &&
                          Catch::Contains("fix that, then go on from its last checkpoint with: "
                                          "cifar-train --config " +
                                          (run / "config.toml").string() + " --resume " +
                                          (run / "last.pt").string()));
  fs::remove(run / "last.pt");  // as if the first checkpoint had failed: none there
  fs::create_directories(run / "last.pt");
  metrics.epoch = 2;
  REQUIRE_THROWS_WITH(
      outputs.epoch_done(metrics, nullptr, {"a", "b"}, "epoch 2", /*best=*/true),
      Catch::Contains("the run stops before its first checkpoint") && !Catch::Contains("--resume"));
  // The failed epochs' TensorBoard records are dropped, not left for the
  // resumed run to write again.
  held.reset();
  for (const auto& entry : fs::directory_iterator(run)) {
    if (entry.path().filename().string().starts_with("events.out.tfevents.")) {
      std::ifstream in(entry.path(), std::ios::binary);
      CHECK(cifar::test::read_all(in).find("epoch/train_loss") == std::string::npos);
    }
  }
}
