// test_run_dir_claim.cpp: a default run folder claimed as the run is
// resolved, and the folders a refused start made removed again.
#include <catch2/catch.hpp>

#include <fstream>
#include <iterator>

#include "cifar/io/run_dir.h"
#include "test_helpers.h"

using namespace cifar;
using cifar::test::TempDir;
namespace fs = std::filesystem;

TEST_CASE("runs started in the same second each claim their own default folder", "[run_dir]") {
  TempDir dir;
  const fs::path runs = dir.path() / "runs";
  fs::path first_dir;
  {
    const RunDirClaim first(runs, "net");
    const RunDirClaim second(runs, "net");  // before the first wrote anything in its folder
    first_dir = first.dir();
    CHECK(fs::is_directory(first.dir()));
    CHECK(fs::is_directory(second.dir()));
    CHECK(first.dir() != second.dir());
    CHECK(first.dir().filename().string().ends_with("-net"));
    std::ofstream(first.dir() / "config.toml") << "x";  // the first run opened its folder
  }
  // The second start was refused: its empty folder went; the first's stays.
  CHECK(fs::exists(first_dir / "config.toml"));
  CHECK(std::distance(fs::directory_iterator(runs), fs::directory_iterator()) == 1);
  fs::remove_all(runs);
  { const RunDirClaim refused(runs, "net"); }
  CHECK_FALSE(fs::exists(runs));  // made for the claim, and empty
}

TEST_CASE("a start refused under a run folder's lock leaves no folder it made", "[run_dir]") {
  TempDir dir;
  const auto run = dir.path() / "new" / "run";
  { RunDirLock refused(run); }  // never kept: the outputs did not open
  CHECK_FALSE(fs::exists(dir.path() / "new"));
  {
    RunDirLock opened(run);
    opened.keep();
  }
  CHECK(fs::exists(run / kRunDirLockFile));
  { RunDirLock refused(run); }  // a folder it did not make stays, its lock file too
  CHECK(fs::exists(run / kRunDirLockFile));
  // Named with a trailing '/', as a shell's completion gives it: all of it goes.
  { RunDirLock refused(dir.path() / "other" / "run/"); }
  CHECK_FALSE(fs::exists(dir.path() / "other"));
}
