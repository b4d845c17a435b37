// test_run_dir.cpp: run-folder locks, fresh-run checks and notes on replaced checkpoints.
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>
#include <catch2/catch.hpp>

#include <fstream>

#include "cifar/core/errors.h"
#include "cifar/io/checkpoint.h"
#include "cifar/io/run_dir.h"
#include "test_helpers.h"

using namespace cifar;
using cifar::test::TempDir;
namespace fs = std::filesystem;

TEST_CASE("a run folder is locked by one run at a time", "[run_dir]") {
  TempDir dir;
  const auto run = dir.path() / "run";
  {
    RunDirLock first(run);
    CHECK(fs::is_directory(run));
    CHECK_THROWS_WITH(RunDirLock(run),
                      Catch::Contains("run folder " + run.string() + " is in use") &&
                          Catch::Contains("pid " + std::to_string(::getpid())));
  }
  RunDirLock again(run);  // released when the first lock went
}

TEST_CASE("the kernel releases a run folder's lock when its process is killed", "[run_dir]") {
  TempDir dir;
  const auto run = dir.path() / "run";
  int ready[2];
  REQUIRE(::pipe(ready) == 0);
  const pid_t pid = ::fork();
  REQUIRE(pid >= 0);
  if (pid == 0) {
    try {
      RunDirLock lock(run);
      [[maybe_unused]] auto n = ::write(ready[1], "x", 1);
      ::pause();
    } catch (...) {
    }
    _exit(1);
  }
  char c;
  REQUIRE(::read(ready[0], &c, 1) == 1);
  CHECK_THROWS_WITH(RunDirLock(run), Catch::Contains("pid " + std::to_string(pid)));
  ::kill(pid, SIGKILL);
  ::waitpid(pid, nullptr, 0);
  RunDirLock after(run);  // no stale lock
  ::close(ready[0]);
  ::close(ready[1]);
}

TEST_CASE("a fresh run refuses a folder with another run's results unless overwriting",
          "[run_dir]") {
  TempDir dir;
  const auto run = dir.path() / "run";
  fs::create_directories(run);
  CHECK(prepare_fresh_run_dir(run, false).empty());
  std::ofstream(run / "metrics.csv") << "epoch\n1\n";
  std::ofstream(run / "best.pt") << "x";
  std::ofstream(run / "notes.txt") << "mine";
  CHECK_THROWS_AS(prepare_fresh_run_dir(run, false), UsageError);
  CHECK_THROWS_WITH(prepare_fresh_run_dir(run, false),
                    Catch::Contains(run.string() + " already holds another run's results "
                                                   "(metrics.csv, best.pt)") &&
                        Catch::Contains("--overwrite") && Catch::Contains("--resume"));
  CHECK(fs::exists(run / "metrics.csv"));
  const auto removed = prepare_fresh_run_dir(run, true);
  CHECK(removed == std::vector<std::string>{"metrics.csv", "best.pt"});
  CHECK_FALSE(fs::exists(run / "metrics.csv"));
  CHECK_FALSE(fs::exists(run / "best.pt"));
  CHECK(fs::exists(run / "notes.txt"));  // only a run's own results go
  CHECK(prepare_fresh_run_dir(run, false).empty());
}

TEST_CASE("a run's identity names its folder, start time and process", "[run_dir]") {
  TempDir dir;
  const auto id = make_run_id(dir.path() / "run");
  CHECK_THAT(id, Catch::StartsWith((dir.path() / "run").string() + " started 20"));
  CHECK_THAT(id, Catch::EndsWith("Z pid " + std::to_string(::getpid())));
  CHECK(make_run_id(dir.path() / "run") != id);  // microseconds apart
}

TEST_CASE("replacing a checkpoint of another run says what it held", "[run_dir]") {
  TempDir dir;
  auto model = make_model(ModelOptions("net"));
  CheckpointInfo info;
  info.epoch = 2;
  info.test_accuracy = 0.536;
  info.class_names = default_class_names();
  info.run_id = "run A";
  const auto path = dir.path() / "net.pt";
  CHECK_FALSE(note_if_replacing_other_run(path, "run B"));  // no file yet
  save_checkpoint(path, info, *model, nullptr);
  CHECK_FALSE(note_if_replacing_other_run(path, "run A"));  // our own
  CHECK(note_if_replacing_other_run(path, "run B") ==
        "replacing " + path.string() +
            " (net, epoch 2, test accuracy 53.6%) written by another run");
  info.step_in_epoch = 7;
  info.test_accuracy = -1;
  save_checkpoint(path, info, *model, nullptr);
  CHECK(note_if_replacing_other_run(path, "run B") ==
        "replacing " + path.string() + " (net, epoch 2 and 7 steps) written by another run");
  std::ofstream(path, std::ios::binary) << "not a checkpoint";
  CHECK(note_if_replacing_other_run(path, "run B") ==
        "replacing " + path.string() + ", which is not a readable cifar-train checkpoint");
}
