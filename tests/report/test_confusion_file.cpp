// confusion.csv as scripts/plot-run reads it.
#include <catch2/catch.hpp>

#include <fstream>
#include <sstream>

#include "cifar/report/confusion_file.h"
#include "test_helpers.h"

TEST_CASE("confusion.csv has a header of class names and one row per true class",
          "[confusion_file]") {
  cifar::test::TempDir dir;
  const auto path = dir.path() / "confusion.csv";
  const std::vector<std::string> names{"cat", "dog", "ship"};
  cifar::write_confusion_csv(path, std::vector<int64_t>{9, 1, 0, 2, 7, 1, 0, 0, 10}, names);
  cifar::write_confusion_csv(path, std::vector<int64_t>{5, 4, 1, 2, 8, 0, 0, 3, 7}, names);
  std::ifstream in(path);
  std::stringstream text;
  text << in.rdbuf();
  CHECK(text.str() == "true\\predicted,cat,dog,ship\ncat,5,4,1\ndog,2,8,0\nship,0,3,7\n");
  CHECK_FALSE(std::filesystem::exists(dir.path() / "confusion.csv.tmp"));
}

TEST_CASE("confusion.csv refuses counts that do not match the names", "[confusion_file]") {
  cifar::test::TempDir dir;
  CHECK_THROWS_WITH(
      cifar::write_confusion_csv(dir.path() / "c.csv", std::vector<int64_t>(8, 0), {"a", "b", "c"}),
      Catch::Contains("8 counts for 3 class names"));
}

TEST_CASE("confusion.csv quotes class names holding commas and quotes", "[confusion_file]") {
  CHECK(cifar::csv_field("cat") == "cat");
  CHECK(cifar::csv_field("air,plane") == "\"air,plane\"");
  CHECK(cifar::csv_field("say \"hi\"") == "\"say \"\"hi\"\"\"");
  cifar::test::TempDir dir;
  const auto path = dir.path() / "confusion.csv";
  cifar::write_confusion_csv(path, std::vector<int64_t>{1, 2, 3, 4}, {"a,b", "c"});
  std::ifstream in(path);
  std::stringstream text;
  text << in.rdbuf();
  CHECK(text.str() == "true\\predicted,\"a,b\",c\n\"a,b\",1,2\nc,3,4\n");
}
