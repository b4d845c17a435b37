// test_reporting.cpp: the tables, the JSON, the epoch line and metrics.csv.
#include <fmt/format.h>
#include <catch2/catch.hpp>

#include <cmath>

#include <fstream>
#include <nlohmann/json.hpp>

#include "cifar/data/image_split.h"
#include "cifar/report/reporting.h"
#include "test_helpers.h"

using namespace cifar;

namespace {
// 3 classes: row = true class. Class 0: 8 of 10 right, class 1: 5 of 5,
// class 2: 0 of 5.
EvalResult three_classes() {
  EvalResult r;
  r.num_classes = 3;
  r.confusion = {8, 1, 1, 0, 5, 0, 2, 3, 0};
  r.total = 20;
  r.correct = 13;
  r.loss = 0.75;
  return r;
}
const std::vector<std::string> kNames = {"cat", "dog", "frog"};
}  // namespace

TEST_CASE("per-class accuracy is the diagonal over the row", "[reporting]") {
  const auto acc = three_classes().per_class_accuracy();
  REQUIRE(acc.size() == 3);
  CHECK(acc[0] == Approx(0.8));
  CHECK(acc[1] == Approx(1.0));
  CHECK(acc[2] == Approx(0.0));
  EvalResult empty_row = three_classes();
  empty_row.confusion = {1, 0, 0, 0, 0, 0, 0, 0, 1};
  CHECK(std::isnan(empty_row.per_class_accuracy()[1]));  // no samples: no figure
  // Said as such, never as 0 %: in the table, the JSON and the best and worst.
  CHECK_THAT(format_per_class(empty_row, kNames),
             Catch::Contains("Accuracy for class: dog        has no test images"));
  CHECK_THAT(eval_to_json(empty_row, "net", "cpu", kNames), Catch::Contains("\"dog\":null"));
}

TEST_CASE("the tutorial's report lines", "[reporting]") {
  const std::string text = format_per_class(three_classes(), kNames);
  CHECK_THAT(text, Catch::StartsWith("Accuracy of the network on the 20 test images: 65.0 %\n"));
  CHECK_THAT(text, Catch::Contains("Accuracy for class: cat        is 80.0 %\n"));
  CHECK_THAT(text, Catch::Contains("Accuracy for class: frog       is 0.0 %\n"));
  const std::string table = format_confusion(three_classes(), kNames);
  CHECK_THAT(table, Catch::Contains(fmt::format("\n{:10}0    1    2\n", "")));
  CHECK_THAT(table, Catch::Contains("\n1 dog     0    5    0\n"));
}

TEST_CASE("the report names the split it scored", "[reporting]") {
  CHECK_THAT(format_per_class(three_classes(), kNames, "val"),
             Catch::StartsWith("Accuracy of the network on the 20 validation images: 65.0 %\n"));
  CHECK_THAT(format_per_class(three_classes(), kNames, "train"),
             Catch::StartsWith("Accuracy of the network on the 20 training images"));
  CHECK(nlohmann::json::parse(
            eval_to_json(three_classes(), "net", "cpu", kNames, "val"))["split"] == "val");
  CHECK(nlohmann::json::parse(eval_to_json(three_classes(), "net", "cpu", kNames))["split"] ==
        "test");
}

TEST_CASE("the JSON report parses and carries every number", "[reporting]") {
  const auto j = nlohmann::json::parse(eval_to_json(three_classes(), "net", "cpu", kNames));
  CHECK(j["model"] == "net");
  CHECK(j["total"] == 20);
  CHECK(j["correct"] == 13);
  CHECK(j["accuracy"].get<double>() == Approx(0.65));
  CHECK(j["loss"].get<double>() == Approx(0.75));
  CHECK(j["per_class"]["dog"].get<double>() == Approx(1.0));
}

TEST_CASE("the epoch line keeps every number", "[reporting]") {
  EpochMetrics m;
  m.epoch = 2;
  m.train_loss = 1.23456;
  m.train_accuracy = 0.5;
  m.test_loss = 1.05;
  m.test_accuracy = 0.25;
  m.lr = 0.0012346;
  m.seconds = 12.34;
  m.images_per_second = 4051.6;
  CHECK(format_epoch_line(m, 5) ==
        "epoch 2/5: train 1.2346 50.00% test 1.0500 25.00% | lr 0.00123 12.3s 4052 img/s");
  m.val_loss = 1.1;
  m.val_accuracy = 0.52;
  m.peak_memory_bytes = 3 * 1024 * 1024;
  CHECK(format_epoch_line(m, 5) ==
        "epoch 2/5: train 1.2346 50.00% val 1.1000 52.00% test 1.0500 25.00% | lr 0.00123 12.3s "
        "4052 img/s peak 3 MiB");
}

TEST_CASE("the epoch line fits 100 columns after the log prefix", "[reporting]") {
  // The widest usual line: two-digit epochs, a scheduled lr, a slow epoch on
  // a fast machine; on the CPU without a validation split.
  EpochMetrics m;
  m.epoch = 99;
  m.train_loss = 2.30259;
  m.train_accuracy = 0.9999;
  m.test_loss = 2.30259;
  m.test_accuracy = 0.9999;
  m.lr = 0.00123456789;
  m.seconds = 999.9;
  m.images_per_second = 99999;
  const std::string prefix = "[09:16:57] info: ";  // setup_logging's pattern
  const std::string line = prefix + format_epoch_line(m, 99);
  CAPTURE(line);
  CHECK(line.size() <= 100);
}

TEST_CASE("metrics.csv gets one header and one row per epoch, also across opens", "[reporting]") {
  test::TempDir dir;
  const auto path = dir.path() / "metrics.csv";
  EpochMetrics m;
  m.epoch = 1;
  m.test_accuracy = 0.5;
  { MetricsCsv(path).write(m); }
  m.epoch = 2;
  { MetricsCsv(path).write(m); }  // a resumed run appends
  std::ifstream in(path);
  std::vector<std::string> lines;
  for (std::string line; std::getline(in, line);) lines.push_back(line);
  REQUIRE(lines.size() == 3);
  CHECK_THAT(lines[0],
             Catch::StartsWith("epoch,train_loss,train_accuracy,test_loss,test_accuracy"));
  CHECK_THAT(lines[1], Catch::StartsWith("1,"));
  CHECK_THAT(lines[2], Catch::StartsWith("2,") && Catch::Contains(",0.500000,"));
}

TEST_CASE("an epoch without evaluation shows and records no test figures", "[reporting]") {
  EpochMetrics m;
  m.epoch = 3;
  m.train_loss = 1.25;
  m.train_accuracy = 0.5;
  m.tested = false;  // --eval-every skipped it
  m.lr = 0.1;
  const std::string line = format_epoch_line(m, 8);
  CHECK_THAT(line, Catch::StartsWith("epoch 3/8: train 1.2500 50.00% | lr 0.1"));
  CHECK_THAT(line, !Catch::Contains("test"));
  test::TempDir dir;
  const auto path = dir.path() / "metrics.csv";
  { MetricsCsv(path).write(m); }
  std::ifstream in(path);
  std::string header, row;
  std::getline(in, header);
  std::getline(in, row);
  // epoch, train_loss, train_accuracy, then the two test columns empty; so
  // are eval_seconds (no evaluation) and peak_memory_bytes (a CPU's: not
  // measured), which read 0.000 and 0.
  CHECK_THAT(row, Catch::StartsWith("3,1.250000,0.500000,,,0.1,"));
  CHECK_THAT(row, Catch::EndsWith(",0.000,0.0,,,,"));
}

TEST_CASE("a resumed metrics.csv drops the rows of epochs its checkpoint does not hold",
          "[reporting]") {
  test::TempDir dir;
  const auto path = dir.path() / "metrics.csv";
  EpochMetrics m;
  for (m.epoch = 1; m.epoch <= 3; ++m.epoch) MetricsCsv(path).write(m);
  // Stopped after epoch 3's row, before its checkpoint: epoch 3 runs again.
  m.epoch = 3;
  { MetricsCsv(path, /*keep_through_epoch=*/2).write(m); }
  { MetricsCsv(path, /*keep_through_epoch=*/3); }  // nothing to drop
  std::ofstream(path, std::ios::app) << "4";       // a row a stop cut short
  { MetricsCsv(path, /*keep_through_epoch=*/3); }
  std::ifstream in(path);
  std::vector<std::string> epochs;
  for (std::string line; std::getline(in, line);) epochs.push_back(line.substr(0, line.find(',')));
  CHECK(epochs == std::vector<std::string>{"epoch", "1", "2", "3"});
}

// A weights file's metadata may name classes with a newline or a terminal's
// escape: the tables keep a line per class and send no escape, as the log
// shows names (core/names.h).
TEST_CASE("class names holding control characters keep the tables' lines", "[reporting]") {
  const std::vector<std::string> odd = {"cat", "dog\nfrog", "red\x1b[31m"};
  for (const std::string& text :
       {format_per_class(three_classes(), odd), format_confusion(three_classes(), odd)}) {
    CHECK_THAT(text, Catch::Contains("'dog\\nfrog'") && Catch::Contains("'red\\x1b[31m'"));
    CHECK(text.find('\x1b') == std::string::npos);
    CHECK(text.find("dog\nfrog") == std::string::npos);
  }
}
