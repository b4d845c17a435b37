// Outputs compared with inputs and with each other by device and inode.
#include <unistd.h>

#include <catch2/catch.hpp>
#include <filesystem>

#include "cifar/core/errors.h"
#include "cifar/core/file_identity.h"
#include "test_helpers.h"

using cifar::NamedFile;
using cifar::test::TempDir;
namespace fs = std::filesystem;

namespace {
// distinct_files_problem's text, thrown as the tools refuse it
// (config/settings_check.h's check_distinct_files, resolve/run_spec.cpp).
void check_distinct_files(const std::vector<NamedFile>& inputs,
                          const std::vector<NamedFile>& outputs) {
  const std::string problem = cifar::distinct_files_problem(inputs, outputs);
  if (!problem.empty()) throw cifar::UsageError(problem);
}
}  // namespace

TEST_CASE("distinct_files_problem sees one file under other spellings", "[file_identity]") {
  TempDir dir;
  const fs::path a = dir.path() / "a.pt";
  cifar::test::write_bytes(a, {1, 2, 3});
  fs::create_directory(dir.path() / "sub");
  fs::create_directory_symlink(dir.path() / "sub", dir.path() / "link");
  fs::create_symlink(a, dir.path() / "soft.pt");
  REQUIRE(::link(a.c_str(), (dir.path() / "hard.pt").c_str()) == 0);

  const std::vector<NamedFile> in{{"--checkpoint", a}};
  // The same file: itself, a detour through "..", a symbolic and a hard link.
  for (const fs::path& out :
       {a, dir.path() / "sub" / ".." / "a.pt", dir.path() / "soft.pt", dir.path() / "hard.pt"}) {
    CHECK_THROWS_AS(check_distinct_files(in, {{"--out", out}}), cifar::UsageError);
  }
  CHECK_THROWS_WITH(check_distinct_files(in, {{"--out", a}}),
                    Catch::Contains("--out " + a.string() + " is the same file as --checkpoint") &&
                        Catch::Contains("would destroy that input"));
  // Two outputs, neither existing yet, one through a linked folder.
  CHECK_THROWS_WITH(
      check_distinct_files({}, {{"the run's best.pt", dir.path() / "sub" / "best.pt"},
                                {"--checkpoint", dir.path() / "link" / "best.pt"}}),
      Catch::StartsWith("--checkpoint ") && Catch::Contains("make one output replace the other"));
  // Different files, inputs that share one, and options not given pass.
  CHECK_NOTHROW(check_distinct_files(
      {{"--checkpoint", a}, {"--weights", a}, {"--weights", ""}},
      {{"--out", dir.path() / "b.pt"}, {"--other", dir.path() / "sub" / "a.pt"}, {"--none", ""}}));
}

TEST_CASE("an output may replace an input only when it continues the same thing",
          "[file_identity]") {
  TempDir dir;
  const fs::path ck = dir.path() / "ck.pt";
  const fs::path toml = dir.path() / "config.toml";
  cifar::test::write_bytes(ck, {1});
  cifar::test::write_bytes(toml, {2});
  const std::vector<NamedFile> in{
      {.role = "--resume", .path = ck, .continues = cifar::kContinuedCheckpoint},
      {.role = "--config", .path = toml, .continues = cifar::kContinuedSettings}};
  // The run's own checkpoint and config.toml go on in the files it started from.
  CHECK_NOTHROW(check_distinct_files(
      in,
      {{.role = "--checkpoint", .path = ck, .continues = cifar::kContinuedCheckpoint},
       {.role = "the run's config.toml", .path = toml, .continues = cifar::kContinuedSettings}}));
  // Anything else on them is refused: another kind, or a plain output.
  CHECK_THROWS_WITH(
      check_distinct_files(
          in,
          {{.role = "the run's config.toml", .path = ck, .continues = cifar::kContinuedSettings}}),
      Catch::Contains("is the same file as --resume"));
  CHECK_THROWS_WITH(check_distinct_files(in, {{"the run's metrics.csv", toml}}),
                    Catch::Contains("is the same file as --config"));
  CHECK_THROWS_WITH(
      check_distinct_files(
          {{"--init-weights", ck}},
          {{.role = "--checkpoint", .path = ck, .continues = cifar::kContinuedCheckpoint}}),
      Catch::Contains("is the same file as --init-weights"));
}
