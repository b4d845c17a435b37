// test_class_report.cpp: the report of an evaluation with more than ten classes.
#include <catch2/catch.hpp>

#include <fmt/format.h>

#include <algorithm>
#include <fstream>
#include <nlohmann/json.hpp>

#include "cifar/report/class_report.h"
#include "cifar/report/reporting.h"
#include "test_helpers.h"

using namespace cifar;

namespace {
// 12 classes of 10 images each; class c has c right answers (class 11: 10),
// the rest predicted as class 0.
EvalResult twelve_classes() {
  EvalResult r;
  r.num_classes = 12;
  r.confusion.assign(144, 0);
  for (int64_t c = 0; c < 12; ++c) {
    const int64_t right = std::min<int64_t>(c, 10);
    r.confusion[static_cast<size_t>(c * 12 + c)] += right;
    r.confusion[static_cast<size_t>(c * 12)] += 10 - right;
    r.correct += c == 0 ? 10 - 0 : right;
  }
  r.total = 120;
  r.correct_top5 = 100;
  return r;
}
}  // namespace

TEST_CASE("more than ten classes: top-1, top-5 and the five best and worst", "[report]") {
  std::vector<std::string> names;
  for (int c = 0; c < 12; ++c) names.push_back(fmt::format("class{}", c));
  const std::string out = format_many_classes(twelve_classes(), names);
  CHECK_THAT(out, Catch::StartsWith("Accuracy of the network on the 120 test images: top-1 "));
  CHECK_THAT(out, Catch::Contains(", top-5 83.3 %\n"));
  // Class 0 is all right (every wrong answer is predicted as 0), 10 and 11 too.
  CHECK_THAT(out, Catch::Contains("The 5 best classes:\n  class0  100.0 %\n  class10 100.0 %\n"
                                  "  class11 100.0 %\n  class9   90.0 %\n  class8   80.0 %\n"));
  CHECK_THAT(out, Catch::Contains("The 5 worst classes:\n  class1   10.0 %\n  class2   20.0 %\n"));
  CHECK_THAT(describe_unprinted_confusion(twelve_classes()), Catch::Contains("12 classes"));
}

TEST_CASE("a class without test images is in neither the best nor the worst", "[report]") {
  std::vector<std::string> names;
  for (int c = 0; c < 12; ++c) names.push_back(fmt::format("class{}", c));
  EvalResult r = twelve_classes();
  std::fill_n(r.confusion.begin() + 12, 12, 0);  // class1: an image folder's test/ lacks it
  r.total -= 10;
  const std::string out = format_many_classes(r, names);
  CHECK_THAT(out, Catch::Contains("The 5 worst classes:\n  class2   20.0 %\n"));
  CHECK_THAT(out, !Catch::Contains("class1 ") && Catch::Contains("(1 class has no test images)"));
}

TEST_CASE("no class is both among the best and the worst, and a tie across the lists is said",
          "[report]") {
  std::vector<std::string> names;
  for (int c = 0; c < 12; ++c) names.push_back(fmt::format("class{}", c));
  EvalResult r = twelve_classes();  // every image predicted as class 11: the others at 0 %
  std::fill(r.confusion.begin(), r.confusion.end(), 0);
  for (size_t c = 0; c < 12; ++c) r.confusion[c * 12 + 11] = 10;
  r.correct = 10;
  const std::string out = format_many_classes(r, names);
  CHECK_THAT(out, Catch::Contains("The 5 best classes:\n  class11 100.0 %\n  class0    0.0 %\n"));
  CHECK_THAT(out, Catch::Contains("The 5 worst classes:\n  class4    0.0 %\n  class5    0.0 %\n"));
  for (int c = 0; c < 12; ++c) {  // each class at most once
    const std::string line = fmt::format("  {:<8}", names[static_cast<size_t>(c)]);
    CHECK(out.find(line) == out.rfind(line));
  }
  CHECK_THAT(out, Catch::Contains("(11 classes tie at 0.0 %: the lists show the first in label "
                                  "order)"));
  // Seven classes with test images: five best, the two others worst.
  std::fill_n(r.confusion.begin(), 5 * 12, 0);
  CHECK_THAT(format_many_classes(r, names),
             Catch::Contains("The 2 worst classes:\n  class9    0.0 %\n  class10   0.0 %\n(6 ") &&
                 Catch::Contains("(5 classes have no test images)"));
  CHECK_THAT(format_many_classes(twelve_classes(), names), !Catch::Contains("tie at"));
  // A partial tie: six classes at 100 %, the others at 0 %: the sixth is
  // left out of the best at the fifth's accuracy, which is said.
  EvalResult partial = twelve_classes();
  std::fill(partial.confusion.begin(), partial.confusion.end(), 0);
  for (size_t c = 0; c < 12; ++c) partial.confusion[c * 12 + (c < 6 ? c : 11 - c % 2)] = 10;
  const std::string tie = format_many_classes(partial, names);
  CHECK_THAT(tie, Catch::Contains("(6 classes tie at 100.0 %: the lists show the first in label "
                                  "order)"));
}

TEST_CASE("more than ten classes: the tables, the JSON and metrics.csv carry top-5", "[report]") {
  std::vector<std::string> names;
  for (int c = 0; c < 12; ++c) names.push_back(fmt::format("class{}", c));
  const EvalResult r = twelve_classes();
  CHECK_THAT(format_per_class(r, names), Catch::Contains("The 5 worst classes:"));
  CHECK_THAT(format_confusion(r, names), Catch::Contains("too many to print"));
  const auto j = nlohmann::json::parse(eval_to_json(r, "net", "cpu", names));
  CHECK(j.at("top5_correct") == 100);
  CHECK(j.at("per_class").size() == 12);
  CHECK(j.at("confusion").size() == 12);
  CHECK(j.at("confusion")[1][0] == 9);

  test::TempDir dir;
  const auto path = dir.path() / "metrics.csv";
  EpochMetrics m;
  m.top5_column = true;
  m.epoch = 1;
  m.test_top5 = 0.25;
  { MetricsCsv(path).write(m); }
  m.epoch = 2;
  m.tested = false;  // --eval-every skipped it: the column stays empty
  m.test_top5 = -1;
  { MetricsCsv(path).write(m); }
  std::ifstream in(path);
  std::vector<std::string> lines;
  for (std::string line; std::getline(in, line);) lines.push_back(line);
  REQUIRE(lines.size() == 3);
  CHECK_THAT(lines[0], Catch::EndsWith(",val_loss,val_accuracy,test_top5_accuracy"));
  CHECK_THAT(lines[1], Catch::EndsWith(",0.250000"));
  CHECK_THAT(lines[2], Catch::StartsWith("2,") && Catch::EndsWith(","));
}
