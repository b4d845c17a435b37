// test_thread_cache.cpp: the thread cache remembers a case's count per load,
// and a damaged, foreign or unwritable file is ignored with a note, never
// trusted and never an error.
#include <catch2/catch.hpp>

#include <fstream>

#include "cifar/platform/cpu_load.h"
#include "cifar/platform/thread_cache.h"
#include "test_helpers.h"

using namespace cifar;
using cifar::test::TempDir;

namespace {
RememberedThreads entry(const std::string& key, double load, int threads) {
  return {.key = key,
          .others_load = load,
          .threads = threads,
          .rates = {{1, 9500.0}, {2, 22000.0}},
          .probe_seconds = 0.6};
}
void write_text(const std::filesystem::path& path, const std::string& text) {
  std::ofstream(path) << text;
}
}  // namespace

TEST_CASE("the thread cache finds a case's count at about the load it was measured at",
          "[thread_cache]") {
  const TempDir dir;
  const auto file = dir.path() / "sub" / "threads.json";  // the folder is made on the first write
  {
    ThreadCache cache(file);
    CHECK(cache.entries().empty());
    CHECK(cache.note().empty());  // a missing file is an empty cache, said nothing about
    cache.remember(entry("a", 0.0, 2));
    cache.remember(entry("a", 1.0, 1));  // the same case beside a busy core
    cache.remember(entry("a", 0.1, 2));  // replaces the first (same load)
    CHECK(cache.note().empty());
  }
  const ThreadCache again(file);
  CHECK(again.note().empty());
  REQUIRE(again.entries().size() == 2);
  REQUIRE(again.find("a", 0.2));
  CHECK(again.find("a", 0.2)->threads == 2);
  CHECK(again.find("a", 0.2)->rates.at(2) == 22000.0);
  CHECK(again.find("a", 0.9)->threads == 1);
  CHECK_FALSE(again.find("a", 2.0));  // a load never measured
  CHECK_FALSE(again.find("b", 0.0));  // another case
  CHECK_FALSE(ThreadCache("").enabled());
  CHECK_FALSE(ThreadCache("").find("a", 0.0));
}

TEST_CASE("a thread case's key changes with each thing the choice depends on", "[thread_cache]") {
  const ThreadCase base{.phase = "train",
                        .cpu = "AMD EPYC",
                        .cores = 2,
                        .model = "net",
                        .batch = 256,
                        .precision = "off",
                        .channels_last = false,
                        .libtorch = "2.11.0"};
  std::vector<ThreadCase> variants(8, base);
  variants[0].phase = "eval";
  variants[1].cpu = "Intel Xeon";
  variants[2].cores = 4;
  variants[3].model = "resnet18";
  variants[4].batch = 128;
  variants[5].precision = "bf16";
  variants[6].channels_last = true;
  variants[7].libtorch = "2.12.0";
  for (const auto& v : variants) CHECK(v.key() != base.key());
  CHECK_THAT(base.key(), Catch::Contains("batch 256") && Catch::Contains("LibTorch 2.11.0"));
}

TEST_CASE("a damaged or foreign thread cache is ignored with a note and rewritten",
          "[thread_cache]") {
  const TempDir dir;
  const auto file = dir.path() / "threads.json";
  const std::string good = thread_cache_text({entry("a", 0.0, 2)});
  REQUIRE(parse_thread_cache(good).size() == 1);
  const auto replace = [&](const std::string& from, const std::string& to) {
    std::string s = good;
    const auto at = s.find(from);
    REQUIRE(at != std::string::npos);
    return s.replace(at, from.size(), to);
  };
  const std::vector<std::pair<std::string, std::string>> cases = {
      {"not JSON", good.substr(0, good.size() / 2)},
      {"not a \"cifar-train thread cache\" file", "{\"cases\": []}"},
      {"not a \"cifar-train thread cache\" file", replace("thread cache", "something else")},
      {"version 2, this build reads 1", replace("\"version\": 1", "\"version\": 2")},
      {"threads -3 is outside", replace("\"threads\": 2", "\"threads\": -3")},
      {"no threads", replace("\"threads\": 2", "\"threads\": 2.5")},
      {"the chosen 2 threads were never measured", replace("\"2\": 22000", "\"4\": 22000")},
      {"is not a thread count", replace("\"2\": 22000", "\"two\": 22000")},
      {"others_load -1 is outside", replace("\"others_load\": 0.0", "\"others_load\": -1")},
  };
  for (const auto& [why, text] : cases) {
    INFO(text);
    write_text(file, text);
    ThreadCache cache(file);
    CHECK(cache.entries().empty());
    CHECK_FALSE(cache.find("a", 0.0));
    CHECK_THAT(cache.note(), Catch::Contains(file.string()) && Catch::Contains(why) &&
                                 Catch::Contains("measured and the file rewritten"));
    cache.remember(entry("b", 0.0, 1));  // replaces the damaged file
    const ThreadCache after(file);
    CHECK(after.note().empty());
    CHECK(after.entries().size() == 1);
  }
}

TEST_CASE("a thread cache that cannot be written is a note, not an error", "[thread_cache]") {
  const TempDir dir;
  write_text(dir.path() / "file", "x");
  ThreadCache cache(dir.path() / "file" / "threads.json");  // under a regular file
  CHECK_NOTHROW(cache.remember(entry("a", 0.0, 2)));
  CHECK_THAT(cache.note(), Catch::Contains("thread cache not written"));
  CHECK(cache.find("a", 0.0));  // still this run's
}

TEST_CASE("the thread cache keeps its newest entries only", "[thread_cache]") {
  const TempDir dir;
  ThreadCache cache(dir.path() / "threads.json");
  for (size_t i = 0; i < ThreadCache::kMaxEntries + 5; ++i) {
    cache.remember(entry("case " + std::to_string(i), 0.0, 1));
  }
  const ThreadCache again(dir.path() / "threads.json");
  CHECK(again.entries().size() == ThreadCache::kMaxEntries);
  CHECK_FALSE(again.find("case 0", 0.0));
  CHECK(again.find("case " + std::to_string(ThreadCache::kMaxEntries + 4), 0.0));
}

TEST_CASE("the thread cache reads the load of other processes as their CPU time per second",
          "[thread_cache]") {
  CpuTimes a{.busy_seconds = 10, .own_seconds = 2, .at = {}};
  CpuTimes b{.busy_seconds = 13, .own_seconds = 3, .at = a.at + std::chrono::seconds(2)};
  REQUIRE(others_busy_cores(a, b));
  CHECK(*others_busy_cores(a, b) == Approx(1.0));  // (3 - 1) CPU seconds over 2 s
  CHECK_FALSE(others_busy_cores(a, a));            // no window
  CHECK(read_cpu_times().has_value());             // Linux: /proc/stat
  CHECK_FALSE(cpu_model_name().empty());
}
