// test_run_dir.cpp: run-folder locks, fresh-run checks and notes on replaced checkpoints.
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>
#include <catch2/catch.hpp>

#include <fmt/format.h>

#include <fstream>
#include <optional>
#include <tuple>

#include "cifar/core/errors.h"
#include "cifar/io/checkpoint.h"
#include "cifar/io/checkpoint_owner.h"
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
  CHECK(run_dir_refusal(run, std::nullopt).empty());
  CHECK(clear_run_dir(run, std::nullopt).empty());
  std::ofstream(run / "metrics.csv") << "epoch\n";
  std::ofstream(run / "notes.txt") << "mine";
  // Stopped before its first checkpoint: no --resume of a last.pt not there.
  CHECK_THAT(run_dir_refusal(run, std::nullopt),
             Catch::Contains(run.string() + " already holds another run's results (metrics.csv); "
                                            "that run stopped before its first checkpoint") &&
                 Catch::Contains("--overwrite") && !Catch::Contains("--resume"));
  std::ofstream(run / "last.pt") << "x";
  std::ofstream(run / "best.pt") << "x";
  // What the run writes at its end, and plot-run's drawing of it: stale beside another run.
  for (const char* name : {"confusion.csv", "model.safetensors", "plots.png"}) {
    std::ofstream(run / name) << "x";
  }
  // TensorBoard's files too: left, they would show the old run and the new as one.
  const std::string events = "events.out.tfevents.1764000000.host.42.0";
  std::ofstream(run / events) << "x";
  std::ofstream(run / "events.out.tfevents.1764000000.host.42.1") << "x";
  CHECK_THAT(run_dir_refusal(run, std::nullopt),
             Catch::Contains(run.string() + " already holds another run's results "
                                            "(metrics.csv, confusion.csv, last.pt, best.pt, "
                                            "model.safetensors, plots.png, 2 TensorBoard event "
                                            "files)") &&
                 Catch::Contains("--overwrite") &&
                 Catch::Contains("--config " + (run / "config.toml").string() + " --resume " +
                                 (run / "last.pt").string()));
  CHECK(fs::exists(run / "metrics.csv"));
  const auto removed = clear_run_dir(run, std::nullopt);
  CHECK(removed == std::vector<std::string>{"metrics.csv", "confusion.csv", "last.pt", "best.pt",
                                            "model.safetensors", "plots.png", events,
                                            "events.out.tfevents.1764000000.host.42.1"});
  CHECK_FALSE(fs::exists(run / "model.safetensors"));
  CHECK_FALSE(fs::exists(run / "metrics.csv"));
  CHECK_FALSE(fs::exists(run / "best.pt"));
  CHECK_FALSE(fs::exists(run / events));
  CHECK(fs::exists(run / "notes.txt"));  // only a run's own results go
  CHECK(run_dir_refusal(run, std::nullopt).empty());
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
  // A run that stopped before its end, its folder's last.pt its own: how to
  // go on with it.
  const fs::path folder = dir.path() / "A";
  fs::create_directories(folder);
  info.run_id = make_run_id(folder);
  info.config_toml = "epochs = 5\n";
  for (const char* name : {"best.pt", "last.pt"}) {
    save_checkpoint(folder / name, info, *model, nullptr);
  }
  save_checkpoint(path, info, *model, nullptr);
  const std::string kept = "; its run folder " + folder.string() + " keeps that run's best.pt";
  const std::string go_on =
      "; that run stopped in epoch 3 of 5: go on with it with --config " +
      (folder / "config.toml").string() + " --resume " + (folder / "last.pt").string() +
      " --checkpoint NEW.pt (its config.toml names this file, now this run's)";
  CHECK(note_if_replacing_other_run(path, "run B") ==
        "replacing " + path.string() + " (net, epoch 2 and 7 steps) written by another run" + kept +
            go_on);
  info.step_in_epoch = 0;
  info.config_toml = "epochs = 2\n";  // done: nothing to go on with
  save_checkpoint(path, info, *model, nullptr);
  CHECK(note_if_replacing_other_run(path, "run B") ==
        "replacing " + path.string() + " (net, epoch 2) written by another run" + kept);
  std::ofstream(path, std::ios::binary) << "not a checkpoint";
  CHECK(note_if_replacing_other_run(path, "run B") ==
        "replacing " + path.string() + ", which is not a readable cifar-train checkpoint");
}

namespace {
// One save of a run's history: a metrics row, last.pt, or --checkpoint
// (written in that order at an epoch's end; an interrupt writes the two
// checkpoints only), at a position (epochs completed, step in the next).
struct Save {
  enum What { kRow, kLast, kCheckpoint } what;
  int64_t epochs;
  int64_t step = 0;
};

// Four epochs, with interrupts in epochs 2 and 3: every order of writes a
// run makes, so that a kill after any of them is covered.
std::vector<Save> run_history() {
  std::vector<Save> history;
  for (int64_t epoch = 1; epoch <= 4; ++epoch) {
    if (epoch == 2 || epoch == 3) {
      history.push_back({Save::kLast, epoch - 1, 5});
      history.push_back({Save::kCheckpoint, epoch - 1, 5});
    }
    history.push_back({Save::kRow, epoch});
    history.push_back({Save::kLast, epoch});
    history.push_back({Save::kCheckpoint, epoch});
  }
  return history;
}

// The folder a run leaves when killed after the first `kill_after` saves of
// its history, its checkpoints carrying `run_id`; the positions of last.pt
// and --checkpoint then.
struct Killed {
  std::optional<std::pair<int64_t, int64_t>> last, checkpoint;
};
Killed leave_folder(const fs::path& dir, const std::vector<Save>& history, size_t kill_after,
                    const std::string& run_id) {
  fs::remove_all(dir);
  fs::create_directories(dir);
  auto model = make_model(ModelOptions("net"));
  std::string rows = std::string(kMetricsCsvHeader) + "\n";
  Killed killed;
  for (size_t i = 0; i < kill_after; ++i) {
    const Save& s = history[i];
    if (s.what == Save::kRow) rows += fmt::format("{},0.5\n", s.epochs);
    if (s.what == Save::kRow) continue;
    (s.what == Save::kLast ? killed.last : killed.checkpoint) = std::pair{s.epochs, s.step};
  }
  std::ofstream(dir / "config.toml") << "# cifar-train settings (read back with --config)\n";
  std::ofstream(dir / "metrics.csv") << rows;
  if (killed.last) {
    CheckpointInfo info;
    info.class_names = default_class_names();
    info.run_id = run_id;
    std::tie(info.epoch, info.step_in_epoch) = *killed.last;
    save_checkpoint(dir / "last.pt", info, *model, nullptr);
    save_checkpoint(dir / "best.pt", info, *model, nullptr);
  }
  return killed;
}

// The folder run "run A" leaves once it has made every save; its last.pt's info.
std::optional<CheckpointInfo> finished_folder(const fs::path& dir) {
  const std::vector<Save> history = run_history();
  leave_folder(dir, history, history.size(), "run A");
  auto last = peek_checkpoint_info(dir / "last.pt");
  REQUIRE(last);
  return last;
}
}  // namespace

TEST_CASE("a resumed run goes on only in its own folder, no further than its checkpoint",
          "[run_dir]") {
  // Every folder a kill can leave, against every checkpoint the run wrote
  // until then: the run goes on from last.pt, or from --checkpoint (which a
  // kill may leave one save behind last.pt), and from nothing older; never
  // in another run's folder; always in an empty one.
  TempDir tmp;
  const fs::path dir = tmp.path() / "run";
  const std::vector<Save> history = run_history();
  int accepted = 0;
  int refused = 0;
  for (size_t kill_after = 1; kill_after <= history.size(); ++kill_after) {
    const Killed killed = leave_folder(dir, history, kill_after, "run A");
    if (!killed.last) continue;  // nothing to resume yet
    for (size_t i = 0; i < kill_after; ++i) {
      if (history[i].what == Save::kRow) continue;
      const std::pair pos{history[i].epochs, history[i].step};
      for (const bool own_checkpoint : {false, true}) {
        // The run's --checkpoint file holds its latest save, not older ones.
        if (own_checkpoint && pos != killed.checkpoint) continue;
        const ResumedRun run{.run_id = "run A",
                             .epochs = pos.first,
                             .step_in_epoch = pos.second,
                             .checkpoint = own_checkpoint ? "net.pt" : "copy.pt",
                             .written_after_last = own_checkpoint};
        const bool latest = pos == killed.last || own_checkpoint;
        INFO("killed after save " << kill_after << ", last.pt at " << killed.last->first << "/"
                                  << killed.last->second << ", resuming " << run.checkpoint
                                  << " at " << pos.first << "/" << pos.second);
        const std::string problem = resumed_run_dir_problem(dir, run).text;
        CHECK(problem.empty() == latest);
        (latest ? accepted : refused) += 1;
        if (!latest) {
          CHECK_THAT(problem, Catch::Contains("further than copy.pt") &&
                                  Catch::Contains("run \"run A\": last.pt"));
          CHECK_THAT(run_dir_refusal(dir, run),
                     Catch::Contains("--resume " + (dir / "last.pt").string()) &&
                         Catch::Contains("--run-dir NEW_DIR") && Catch::Contains("--overwrite"));
        }
        // Another run's checkpoint, wherever it stands, never goes on here.
        ResumedRun other = run;
        other.run_id = "run B";
        CHECK_THAT(resumed_run_dir_problem(dir, other).text,
                   Catch::Contains("holds another run's results") &&
                       Catch::Contains("run \"run A\"") && Catch::Contains("run \"run B\""));
        // In a new folder, any of them goes on.
        CHECK(resumed_run_dir_problem(tmp.path() / "new", run).text.empty());
      }
    }
  }
  CHECK(accepted > 10);
  CHECK(refused > 10);
}

TEST_CASE("a resumed run's folder behind its checkpoint is refused, naming where it went on",
          "[run_dir]") {
  // A copy of the run's checkpoint went on in another folder (epochs 3 and
  // 4 there), and comes back to a folder that stopped at epoch 2: its rows
  // for epochs 3 and 4 would be missing.
  TempDir tmp;
  const fs::path dir = tmp.path() / "run";
  const auto last = finished_folder(dir);
  const ResumedRun ahead{.run_id = "run A",
                         .epochs = last->epoch + 2,
                         .step_in_epoch = 0,
                         .checkpoint = "a.pt",
                         .written_after_last = false,
                         .trained_in = (tmp.path() / "fork").string()};
  fs::create_directories(tmp.path() / "fork");
  const std::string problem = resumed_run_dir_problem(dir, ahead).text;
  CHECK_THAT(problem,
             Catch::Contains("holds the run being resumed behind a.pt") &&
                 Catch::Contains(fmt::format("a.pt at the end of epoch {}", ahead.epochs)) &&
                 Catch::Contains("--run-dir " + ahead.trained_in + " goes on there"));
  CHECK_THAT(run_dir_refusal(dir, ahead),
             Catch::Contains("--run-dir NEW_DIR") && Catch::Contains("--overwrite"));
  // One step on is behind too; where it went on unknown, nothing is named.
  ResumedRun step = ahead;
  step.epochs = last->epoch;
  step.step_in_epoch = last->step_in_epoch + 1;
  step.trained_in.clear();
  CHECK_THAT(resumed_run_dir_problem(dir, step).text,
             Catch::Contains("behind a.pt") && !Catch::Contains("goes on there"));
  CHECK(clear_run_dir(dir, ahead).size() > 0);  // --overwrite replaces them
}

TEST_CASE("a resumed run's folder whose metrics.csv cifar-train did not write is refused",
          "[run_dir]") {
  // The run would append its rows to whatever the file holds.
  TempDir tmp;
  const fs::path dir = tmp.path() / "run";
  const auto last = finished_folder(dir);
  const ResumedRun run{.run_id = "run A", .epochs = last->epoch, .checkpoint = "last.pt"};
  REQUIRE(resumed_run_dir_problem(dir, run).text.empty());
  std::ofstream(dir / "metrics.csv") << "\x1b[2Jname,score\nalice,3\n";
  CHECK_THAT(run_dir_refusal(dir, run),
             Catch::Contains("holds a metrics.csv that cifar-train did not write (it starts "
                             "'?[2Jname,score'") &&
                 Catch::Contains("--run-dir NEW_DIR") && Catch::Contains("--overwrite"));
  std::ofstream(dir / "metrics.csv", std::ios::trunc);  // an empty one gets the header
  CHECK(resumed_run_dir_problem(dir, run).text.empty());
}

TEST_CASE("a resumed run's folder without a last.pt of its own is refused, or replaced",
          "[run_dir]") {
  TempDir tmp;
  const fs::path dir = tmp.path() / "run";
  fs::create_directories(dir);
  std::ofstream(dir / "config.toml") << "# cifar-train settings (read back with --config)\n";
  std::ofstream(dir / "metrics.csv") << "epoch,train_loss\n1,0.5\n";
  const ResumedRun run{.run_id = "run A", .epochs = 1, .checkpoint = "a.pt"};
  CHECK_THAT(run_dir_refusal(dir, run), Catch::Contains("--overwrite"));
  CHECK(fs::exists(dir / "metrics.csv"));
  CHECK(clear_run_dir(dir, run) == std::vector<std::string>{"config.toml", "metrics.csv"});
  CHECK_FALSE(fs::exists(dir / "metrics.csv"));
  // What a start that failed in its first epoch leaves (no checkpoint, no
  // row) holds nothing to lose: the resumed run goes on there.
  std::ofstream(dir / "config.toml") << "# cifar-train settings (read back with --config)\n";
  std::ofstream(dir / "metrics.csv");
  CHECK(run_dir_refusal(dir, run).empty());
  std::ofstream(dir / "metrics.csv") << kMetricsCsvHeader << "\n";
  CHECK(run_dir_refusal(dir, run).empty());
  fs::remove(dir / "metrics.csv");
  std::ofstream(dir / "last.pt") << "not a checkpoint";
  CHECK_THAT(resumed_run_dir_problem(dir, run).text, Catch::Contains("not a readable checkpoint"));
  // Checkpoints without a run id (format version 1) prove nothing.
  CheckpointInfo info;
  info.class_names = default_class_names();
  info.epoch = 1;
  save_checkpoint(dir / "last.pt", info, *make_model(ModelOptions("net")), nullptr);
  CHECK_THAT(resumed_run_dir_problem(dir, ResumedRun{.epochs = 1}).text,
             Catch::Contains("holds another run's results"));
}

TEST_CASE("a kill between best.pt's write and last.pt's leaves a folder that goes on",
          "[run_dir]") {
  // best.pt is written before last.pt at an epoch's end (report/run_outputs):
  // a kill between the two leaves best.pt one epoch further than last.pt,
  // or alone in the first epoch.
  TempDir tmp;
  const fs::path dir = tmp.path() / "run";
  fs::create_directories(dir);
  auto model = make_model(ModelOptions("net"));
  const auto save = [&](const char* name, int64_t epoch) {
    CheckpointInfo info;
    info.class_names = default_class_names();
    info.run_id = "run A";
    info.epoch = epoch;
    save_checkpoint(dir / name, info, *model, nullptr);
  };
  std::ofstream(dir / "config.toml") << "# cifar-train settings (read back with --config)\n";
  std::ofstream(dir / "metrics.csv") << kMetricsCsvHeader << "\n1,0.5\n";
  save("best.pt", 1);
  // The first epoch: the same command again is told to resume best.pt, which goes on.
  CHECK_THAT(run_dir_refusal(dir, std::nullopt),
             Catch::Contains("--resume " + (dir / "best.pt").string()));
  const ResumedRun from_best{.run_id = "run A", .epochs = 1, .checkpoint = "best.pt"};
  CHECK(resumed_run_dir_problem(dir, from_best).text.empty());
  ResumedRun other = from_best;
  other.run_id = "run B";
  CHECK_THAT(resumed_run_dir_problem(dir, other).text,
             Catch::Contains("holds another run's results") && Catch::Contains("best.pt"));
  // A later epoch: last.pt at 1, best.pt at 2; either goes on.
  save("last.pt", 1);
  save("best.pt", 2);
  std::ofstream(dir / "metrics.csv", std::ios::app) << "2,0.4\n";
  CHECK(resumed_run_dir_problem(dir, {.run_id = "run A", .epochs = 2, .checkpoint = "best.pt"})
            .text.empty());
  CHECK(resumed_run_dir_problem(dir, {.run_id = "run A", .epochs = 1, .checkpoint = "last.pt"})
            .text.empty());
  // A copy trained further elsewhere is still behind here.
  CHECK_THAT(
      resumed_run_dir_problem(dir, {.run_id = "run A", .epochs = 3, .checkpoint = "a.pt"}).text,
      Catch::Contains("behind a.pt"));
}

TEST_CASE("an output that is a symbolic link to nothing, or a loop, is named so", "[run_dir]") {
  TempDir tmp;
  const fs::path dangling = tmp.path() / "dangling.pt";
  fs::create_symlink("gone/x.pt", dangling);
  CHECK(non_file_kind(dangling) == "a symbolic link to gone/x.pt, which is missing");
  const fs::path loop = tmp.path() / "loop.pt";
  fs::create_symlink("loop.pt", loop);
  CHECK_THAT(non_file_kind(loop),
             Catch::StartsWith("a symbolic link to loop.pt, which cannot be followed (") &&
                 Catch::Contains("symbolic links"));
  CHECK(non_file_kind(tmp.path() / "nothing.pt").empty());
}

TEST_CASE("what a run that stopped in its first epoch left is replaced by a fresh run",
          "[run_dir]") {
  // config.toml, metrics.csv without a row, TensorBoard's file, no
  // checkpoint: the same command again goes on without --overwrite.
  TempDir tmp;
  const fs::path dir = tmp.path() / "run";
  fs::create_directories(dir);
  const auto leave = [&] {
    std::ofstream(dir / "config.toml") << "# cifar-train settings (read back with --config)\n";
    std::ofstream(dir / "metrics.csv") << kMetricsCsvHeader << "\n";
    std::ofstream(dir / "events.out.tfevents.1764000000.host.42.0") << "x";
  };
  leave();
  std::ofstream(dir / "notes.txt") << "mine";
  CHECK(run_dir_refusal(dir, std::nullopt).empty());
  CHECK(failed_start_leftovers(dir) ==
        std::vector<std::string>{"config.toml", "metrics.csv",
                                 "events.out.tfevents.1764000000.host.42.0"});
  CHECK(clear_failed_start(dir).size() == 3);
  CHECK_FALSE(fs::exists(dir / "metrics.csv"));
  CHECK(fs::exists(dir / "notes.txt"));  // only a run's own files go
  // Anything a completed epoch leaves is kept, and the folder refused.
  leave();
  std::ofstream(dir / "metrics.csv", std::ios::app) << "1,0.5\n";
  CHECK_THAT(run_dir_refusal(dir, std::nullopt), Catch::Contains("already holds"));
  CHECK(clear_failed_start(dir).empty());
  leave();
  std::ofstream(dir / "best.pt") << "x";
  CHECK_THAT(run_dir_refusal(dir, std::nullopt), Catch::Contains("already holds"));
  fs::remove(dir / "best.pt");
  std::ofstream(dir / "config.toml") << "epochs = 3\n";  // not one cifar-train wrote
  CHECK_THAT(run_dir_refusal(dir, std::nullopt), Catch::Contains("already holds"));
  CHECK(clear_failed_start(dir).empty());
}
