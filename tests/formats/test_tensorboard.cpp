// The event file's framing, checked record by record in C++ (the values are
// checked with TensorBoard's own reader in tests/cli/tensorboard_events.sh).
#include <catch2/catch.hpp>

#include <algorithm>
#include <fstream>
#include <regex>
#include <string>
#include <vector>

#include "cifar/formats/crc32c.h"
#include "cifar/formats/tensorboard.h"
#include "cifar/formats/tensorboard_trim.h"
#include "test_helpers.h"

namespace {

uint64_t le(const std::string& s, size_t at, size_t bytes) {
  uint64_t v = 0;
  for (size_t i = bytes; i-- > 0;) v = (v << 8) | static_cast<uint8_t>(s[at + i]);
  return v;
}

// The records of a TFRecord file, each checked against its two CRCs.
std::vector<std::string> read_records(const std::filesystem::path& path) {
  std::ifstream in(path, std::ios::binary);
  const std::string file = cifar::test::read_all(in);
  std::vector<std::string> records;
  size_t at = 0;
  while (at < file.size()) {
    REQUIRE(at + 12 <= file.size());
    const uint64_t n = le(file, at, 8);
    CHECK(le(file, at + 8, 4) == cifar::mask_crc32c(cifar::crc32c(file.substr(at, 8))));
    REQUIRE(at + 12 + n + 4 <= file.size());
    const std::string data = file.substr(at + 12, n);
    CHECK(le(file, at + 12 + n, 4) == cifar::mask_crc32c(cifar::crc32c(data)));
    records.push_back(data);
    at += 12 + n + 4;
  }
  return records;
}

bool has(const std::string& s, const std::string& part) {
  return s.find(part) != std::string::npos;
}

}  // namespace

TEST_CASE("an event file starts with the file version and frames every record", "[tensorboard]") {
  cifar::test::TempDir dir;
  std::filesystem::path path;
  {
    cifar::TensorBoardWriter writer(dir.path() / "tb");
    path = writer.path();
    CHECK(std::regex_match(path.filename().string(),
                           std::regex(R"(events\.out\.tfevents\.\d{10}\.[^.]+.*\.\d+\.\d+)")));
    writer.scalar("train/loss", 0.5, 7);
    writer.text("config", "lr = 0.1", 0);
    writer.image("test/confusion", std::vector<uint8_t>{0x89, 'P', 'N', 'G'}, 2, 3, 1);
    writer.flush();
  }
  const auto records = read_records(path);
  REQUIRE(records.size() == 4);
  CHECK(has(records[0], "brain.Event:2"));
  // Summary.Value { tag = 1: "train/loss"; simple_value = 2: 0.5f (00 00 00 3f) }
  CHECK(has(records[1], std::string("\x0a\x0atrain/loss\x15\x00\x00\x00\x3f", 17)));
  CHECK(has(records[1], std::string("\x10\x07", 2)));  // Event.step = 7
  CHECK(has(records[2], "lr = 0.1"));
  CHECK(has(records[2], "text"));
  CHECK(has(records[3], std::string("\x08\x02\x10\x03\x18\x03\x22\x04\x89PNG", 12)));
}

TEST_CASE("each writer starts a new file in the same folder", "[tensorboard]") {
  cifar::test::TempDir dir;
  cifar::TensorBoardWriter first(dir.path());
  cifar::TensorBoardWriter second(dir.path());
  CHECK(first.path() != second.path());
  CHECK(first.path().parent_path() == second.path().parent_path());
  CHECK(std::distance(std::filesystem::directory_iterator(dir.path()),
                      std::filesystem::directory_iterator()) == 2);
}

TEST_CASE("an event file that cannot be created names its path", "[tensorboard]") {
  cifar::test::TempDir dir;
  std::ofstream(dir.path() / "file") << "x";
  CHECK_THROWS_WITH(cifar::TensorBoardWriter(dir.path() / "file" / "tb"),
                    Catch::Contains("file/tb"));
}

TEST_CASE("records reach the file only at flush(), or when the writer goes", "[tensorboard]") {
  // A run flushes where it writes a checkpoint: killed after, its file holds
  // no step that its resumed run writes again (the stream's own buffer
  // spilled about every 8 KB).
  cifar::test::TempDir dir;
  std::filesystem::path path;
  {
    cifar::TensorBoardWriter writer(dir.path());
    path = writer.path();
    CHECK(read_records(path).size() == 1);  // the file version, flushed at once
    for (int step = 1; step <= 2000; ++step) writer.scalar("train/running_loss", 1.0, step);
    CHECK(read_records(path).size() == 1);  // about 60 KB held
    writer.flush();
    CHECK(read_records(path).size() == 2001);
    writer.scalar("train/running_loss", 1.0, 2001);
    CHECK(read_records(path).size() == 2001);
  }
  CHECK(read_records(path).size() == 2002);  // a failed run keeps its last steps
}

TEST_CASE("an event file cut back to a step keeps the records up to it, bytes as they were",
          "[tensorboard]") {
  cifar::test::TempDir dir;
  std::filesystem::path path;
  {
    cifar::TensorBoardWriter writer(dir.path());
    path = writer.path();
    for (int64_t step = 1; step <= 30; ++step) writer.scalar("train/running_loss", 1.0, step);
    writer.text("config", "lr = 0.1", 4);
    writer.purge_from(31);
  }
  const auto before = read_records(path);
  REQUIRE(before.size() == 33);
  // 31 with the purge marker: Event { step = 2: 31; session_log = 7 { status = 1: START } }
  CHECK(has(before[32], std::string("\x10\x1f\x3a\x02\x08\x01", 6)));
  CHECK(cifar::drop_events_after(path, 12) == 19);  // steps 13 to 30, and the marker
  auto after = read_records(path);
  REQUIRE(after.size() == 14);  // the file version, steps 1 to 12, the text at 4
  CHECK(std::equal(after.begin(), after.begin() + 13, before.begin()));
  CHECK(after[13] == before[31]);
  CHECK(cifar::drop_events_after(path, 12) == 0);  // nothing past 12: the file is left as it is

  // A torn last record (a killed run's) ends the file.
  std::ofstream(path, std::ios::binary | std::ios::app) << std::string("\x30\x00\x00", 3);
  CHECK(cifar::drop_events_after(path, 100) == 1);
  CHECK(read_records(path).size() == 14);
}
