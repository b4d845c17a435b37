// test_file_io.cpp: whole-file reads name the real cause; writes name the user's path.
#include <fmt/format.h>
#include <grp.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>
#include <catch2/catch.hpp>

#include <algorithm>
#include <string>
#include <vector>

#include "cifar/core/file_io.h"
#include "cifar/core/names.h"
#include "test_helpers.h"

using namespace cifar;
using cifar::test::TempDir;
namespace fs = std::filesystem;

namespace {

// Runs fn in a child process as an unprivileged user (nobody, when the tests
// run as root, where permission bits do not stop reads) and returns the
// message of the exception it threw, or "" if it threw none.
template <typename Fn>
std::string error_as_unprivileged_user(Fn fn) {
  int out[2];
  REQUIRE(::pipe(out) == 0);
  const pid_t pid = ::fork();
  REQUIRE(pid >= 0);
  if (pid == 0) {
    ::close(out[0]);
    if (::getuid() == 0 &&
        (::setgroups(0, nullptr) != 0 || ::setgid(65534) != 0 || ::setuid(65534) != 0)) {
      _exit(3);
    }
    std::string message;
    try {
      fn();
    } catch (const std::exception& e) {
      message = e.what();
    }
    [[maybe_unused]] auto n = ::write(out[1], message.data(), message.size());
    _exit(0);
  }
  ::close(out[1]);
  std::string message;
  char buf[4096];
  for (ssize_t n; (n = ::read(out[0], buf, sizeof(buf))) > 0;)
    message.append(buf, static_cast<size_t>(n));
  ::close(out[0]);
  int status = 0;
  ::waitpid(pid, &status, 0);
  REQUIRE(WIFEXITED(status));
  REQUIRE(WEXITSTATUS(status) == 0);
  return message;
}

size_t count(const std::string& haystack, const std::string& needle) {
  size_t n = 0;
  for (auto at = haystack.find(needle); at != std::string::npos;
       at = haystack.find(needle, at + 1)) {
    ++n;
  }
  return n;
}

}  // namespace

TEST_CASE("read_file reads a whole regular file", "[file_io]") {
  TempDir dir;
  test::write_bytes(dir.path() / "f", {1, 2, 3, 0, 5});
  CHECK(read_file(dir.path() / "f", 5, "test file") == std::string("\1\2\3\0\5", 5));
  test::write_bytes(dir.path() / "empty", {});
  CHECK(read_file(dir.path() / "empty", 5, "test file").empty());
}

TEST_CASE("read_file tells missing, folder, device and too large apart", "[file_io]") {
  TempDir dir;
  const auto missing = dir.path() / "missing.bin";
  CHECK_THROWS_WITH(
      read_file(missing, 10, "checkpoint", "train one first"),
      Catch::Contains("checkpoint " + missing.string() + " does not exist: train one first"));
  CHECK_THROWS_WITH(read_file(dir.path() / "no" / "dir" / "f", 10, "checkpoint"),
                    Catch::Contains("does not exist"));
  CHECK_THROWS_WITH(read_file(dir.path(), 10, "checkpoint"), Catch::Contains("is a directory"));
  CHECK_THROWS_WITH(read_file("/dev/zero", 10, "config file"),
                    Catch::Contains("/dev/zero is not a regular file"));
  test::write_bytes(dir.path() / "big", std::vector<uint8_t>(11, 7));
  CHECK_THROWS_WITH(read_file(dir.path() / "big", 10, "checkpoint"),
                    Catch::Contains("is 11 bytes, more than the 10"));
}

TEST_CASE("read_file says permission denied for a file and for a folder", "[file_io]") {
  TempDir dir;
  const auto file = dir.path() / "secret.bin";
  test::write_bytes(file, {1, 2, 3});
  ::chmod(file.c_str(), 0);
  std::string message = error_as_unprivileged_user([&] { read_file(file, 10, "data file"); });
  CHECK_THAT(message, Catch::Contains("data file " + file.string() + ": permission denied"));
  CHECK_THAT(message, !Catch::Contains("does not exist"));

  fs::create_directories(dir.path() / "locked");
  const auto inside = dir.path() / "locked" / "f.bin";
  test::write_bytes(inside, {1});
  ::chmod((dir.path() / "locked").c_str(), 0);
  message = error_as_unprivileged_user([&] { read_file(inside, 10, "data file"); });
  CHECK_THAT(message, Catch::Contains(inside.string() + ": permission denied") &&
                          Catch::Contains("folder 'locked'"));
  message = error_as_unprivileged_user(
      [&] { check_readable_directory(dir.path() / "locked", "CIFAR-10 directory"); });
  CHECK_THAT(message, Catch::Contains("locked: permission denied"));
  ::chmod((dir.path() / "locked").c_str(), 0755);
}

TEST_CASE("ensure_writable and atomic writes name the user's path, once", "[file_io]") {
  TempDir dir;
  CHECK_THROWS_WITH(ensure_writable("/proc/x.pt"), Catch::Contains("cannot write /proc/x.pt") &&
                                                       !Catch::Contains(".cifar-train-write-test"));
  CHECK_THROWS_WITH(write_file_atomically("/proc/x.pt", "x"),
                    Catch::Contains("cannot write /proc/x.pt") && !Catch::Contains(".tmp"));
  // A 4,800-character path: printed once, not once per folder and file.
  std::string long_name = dir.path().string();
  for (int i = 0; i < 48; ++i) {
    long_name += '/';
    long_name.append(99, static_cast<char>('a' + i % 26));
  }
  const fs::path long_path = long_name + "/net.pt";
  try {
    ensure_writable(long_path);
    FAIL("a 4,800-character path was accepted");
  } catch (const std::runtime_error& e) {
    const std::string message = e.what();
    CHECK(count(message, std::string(99, 'z')) == 1);
    CHECK(message.size() < long_name.size() + 200);
  }
}

TEST_CASE("an immutable or append-only output is refused before anything is written", "[file_io]") {
  TempDir dir;
  const fs::path file = dir.path() / "net.pt";
  test::write_bytes(file, {1});
  for (const char* flag : {"i", "a"}) {
    INFO("chattr +" << flag);
    const std::string set = fmt::format("chattr +{} '{}' 2>/dev/null", flag, file.string());
    if (std::system(set.c_str()) != 0) {  // needs root and a file system with the flag
      WARN("chattr +" << flag << " is not allowed here: the check was not run");
      continue;
    }
    std::string message;
    try {
      ensure_writable(file, "--checkpoint");
    } catch (const std::runtime_error& e) {
      message = e.what();
    }
    std::system(fmt::format("chattr -{} '{}'", flag, file.string()).c_str());
    CHECK_THAT(message, Catch::Contains("cannot write " + file.string() +
                                        ": Operation not permitted (the file or its folder is "
                                        "immutable or append-only"));
  }
}

// Issue 47, class 6: names as the file system has them.
TEST_CASE("a name in a message reads back exactly and keeps its line whole", "[file_io]") {
  CHECK(shown_name(std::string("photos/cat 1.png")) == "photos/cat 1.png");
  CHECK(shown_name(std::string("caf\xc3\xa9/\xe6\x97\xa5.png")) == "caf\xc3\xa9/\xe6\x97\xa5.png");
  CHECK(shown_name(std::string("Q/bad\nname.png")) == "'Q/bad\\nname.png'");
  CHECK(shown_name(std::string("a\tb'c\\d\x7f\x01")) == "'a\\tb\\'c\\\\d\\x7f\\x01'");
  CHECK(shown_name(std::string("caf\xe9.png")) == "'caf\\xe9.png'");  // Latin-1, not UTF-8
  // A file whose name holds a newline: its error is one line, the reason kept.
  TempDir dir;
  const fs::path odd = dir.path() / "bad\nname.png";
  CHECK_THROWS_WITH(read_file(odd, 10, "image"),
                    Catch::Contains("bad\\nname.png' does not exist") && !Catch::Contains("\n"));
}

TEST_CASE("a temporary file of an atomic write names the file it stands for", "[file_io]") {
  CHECK(temp_file_target(".last.pt.tmp0123abcd") == "last.pt");
  CHECK(temp_file_target(".events.out.tfevents.1.host.2.0.tmpdeadbeef") ==
        "events.out.tfevents.1.host.2.0");
  CHECK(temp_file_target("last.pt.tmp0123abcd").empty());   // not hidden
  CHECK(temp_file_target(".last.pt.tmp0123abc").empty());   // 7 digits
  CHECK(temp_file_target(".last.pt.tmp0123ABCD").empty());  // not as {:08x} writes them
  CHECK(temp_file_target(".tmp0123abcd").empty());          // no name
  // A finished write leaves none behind.
  TempDir dir;
  write_file_atomically(dir.path() / "m.pt", "x");
  for (const auto& entry : fs::directory_iterator(dir.path())) {
    CHECK(temp_file_target(entry.path().filename().string()).empty());  // renamed into place
  }
}

TEST_CASE("a path in a printed command pastes into a shell as one word", "[file_io]") {
  // Python's shlex.quote: the same words.
  CHECK(shell_word("runs/2026-11-30-net/last.pt") == "runs/2026-11-30-net/last.pt");
  CHECK(shell_word("my run/config.toml") == "'my run/config.toml'");
  CHECK(shell_word("my ck's.pt") == "'my ck'\"'\"'s.pt'");
  CHECK(shell_word("") == "''");
  CHECK(shell_word("a$b") == "'a$b'");
  CHECK(shell_word("caf\xc3\xa9.pt") == "'caf\xc3\xa9.pt'");
}

TEST_CASE("a name takes the article it is said with", "[file_io]") {
  CHECK(a_or_an("net") == "a net");
  CHECK(a_or_an("resnet18") == "a resnet18");
  CHECK(a_or_an("airbench94") == "an airbench94");
  CHECK(a_or_an("efficientnet_lite0") == "an efficientnet_lite0");
  CHECK(a_or_an("int") == "an int");
  CHECK(a_or_an("10-class") == "a 10-class");
  CHECK(a_or_an("8-class") == "an 8-class");
  CHECK(a_or_an("18") == "an 18");
  CHECK(a_or_an("11-class") == "an 11-class");
  CHECK(a_or_an("110-class") == "a 110-class");
  CHECK(a_or_an("") == "a ");
}

TEST_CASE("names sort as Python sorts os.walk's str names", "[file_io]") {
  // sorted(os.fsdecode(n) for n in names), as Python 3 gives it (byte order
  // puts \xc3( before \xc3\xa9 and \xff last).
  const std::vector<std::string> python{"Z.png",
                                        "a.png",
                                        "b\nc.png",
                                        "\xc3\xa9t\xc3\xa9.png",
                                        "\xc4\x80.png",
                                        "\xc3(.png",
                                        "\xe9t\xe9.png",
                                        "\xed\xa0\x80.png",
                                        "\xff.png",
                                        "\xee\x80\x80.png",
                                        "\xf0\x9f\x99\x82.png"};
  std::vector<std::string> names(python.rbegin(), python.rend());
  std::sort(names.begin(), names.end(), python_name_less);
  CHECK(names == python);
  CHECK_FALSE(python_name_less("a", "a"));
  CHECK(python_name_less("a", "ab"));
  CHECK_FALSE(python_name_less("ab", "a"));
}

TEST_CASE("a long list of names is shown in part, with how many more", "[file_io]") {
  const std::vector<std::string> names{"a", "b", "c", "d"};
  CHECK(first_names(names, 2) == "a, b and 2 more");
  CHECK(first_names(names, 4) == "a, b, c, d");
  CHECK(first_names(names, 9, "; ") == "a; b; c; d");
  CHECK(first_names(names, 1, "; ") == "a and 3 more");
  CHECK(first_names(names, 4, ", ", 10) == "a, b, c, d and 6 more");  // only some were kept
  CHECK(first_names({}, 3).empty());
}
