// test_cifar10.cpp: the CIFAR-10 reader on files the tests write themselves.
#include <catch2/catch.hpp>

#include "cifar/core/errors.h"
#include "cifar/data/cifar10.h"
#include "test_helpers.h"

using namespace cifar;
using cifar::test::TempDir;

namespace {
constexpr int64_t kRecords = 8;
Cifar10Options small() {
  Cifar10Options o;
  o.records_per_file = kRecords;
  return o;
}
}  // namespace

TEST_CASE("a well-formed split is read into one uint8 tensor", "[data]") {
  TempDir dir;
  test::write_small_cifar(dir.path(), kRecords);
  const auto train = read_cifar10(dir.path(), Split::kTrain, small());
  CHECK(train.images.sizes() == torch::IntArrayRef{5 * kRecords, 3, 32, 32});
  CHECK(train.images.dtype() == torch::kUInt8);
  CHECK(train.labels.dtype() == torch::kInt64);
  CHECK(train.size() == 5 * kRecords);
  // Labels run on across files; channels hold R = r, G = 100 + label, B = 200.
  for (int64_t i = 0; i < train.size(); ++i) {
    REQUIRE(train.labels[i].item<int64_t>() == i % 10);
  }
  const int64_t i = kRecords + 3;  // second file, record 3
  CHECK(train.images[i][0][5][7].item<int>() == 3);
  CHECK(train.images[i][1][31][0].item<int>() == 100 + i % 10);
  CHECK(train.images[i][2][0][31].item<int>() == 200);

  const auto test = read_cifar10(dir.path(), Split::kTest, small());
  CHECK(test.size() == kRecords);
  CHECK(test.class_names == default_class_names());
}

TEST_CASE("class names come from batches.meta.txt when it holds ten", "[data]") {
  TempDir dir;
  {
    std::ofstream meta(dir.path() / "batches.meta.txt");
    for (int i = 0; i < 10; ++i) meta << "class" << i << "\r\n";
    meta << "\n";
  }
  const auto names = read_class_names(dir.path());
  REQUIRE(names.size() == 10);
  CHECK(names[0] == "class0");
  CHECK(names[9] == "class9");
  {
    std::ofstream meta(dir.path() / "batches.meta.txt");
    meta << "only\ntwo\n";
  }
  CHECK(read_class_names(dir.path()) == default_class_names());
}

TEST_CASE("reader errors name the file, the problem and the fix", "[data]") {
  TempDir dir;
  SECTION("missing directory") {
    REQUIRE_THROWS_WITH(
        read_cifar10(dir.path() / "nope", Split::kTrain, small()),
        Catch::Contains("does not exist") && Catch::Contains("download_cifar10.sh"));
  }
  SECTION("path is a file") {
    test::write_bytes(dir.path() / "file", {1, 2, 3});
    REQUIRE_THROWS_WITH(read_cifar10(dir.path() / "file", Split::kTrain, small()),
                        Catch::Contains("not a directory"));
  }
  SECTION("empty directory") {
    REQUIRE_THROWS_WITH(read_cifar10(dir.path(), Split::kTrain, small()),
                        Catch::Contains("data_batch_1.bin is missing"));
  }
  SECTION("one file missing") {
    test::write_small_cifar(dir.path(), kRecords);
    std::filesystem::remove(dir.path() / "data_batch_4.bin");
    REQUIRE_THROWS_WITH(read_cifar10(dir.path(), Split::kTrain, small()),
                        Catch::Contains("data_batch_4.bin is missing"));
  }
  SECTION("truncated file") {
    test::write_small_cifar(dir.path(), kRecords);
    auto bytes = test::make_records(kRecords);
    bytes.resize(bytes.size() - 100);
    test::write_bytes(dir.path() / "test_batch.bin", bytes);
    REQUIRE_THROWS_WITH(read_cifar10(dir.path(), Split::kTest, small()),
                        Catch::Contains("test_batch.bin") && Catch::Contains("truncated") &&
                            Catch::Contains(std::to_string(kRecords * kRecordBytes)));
  }
  SECTION("file too large") {
    test::write_small_cifar(dir.path(), kRecords);
    test::write_bytes(dir.path() / "test_batch.bin", test::make_records(kRecords + 1));
    REQUIRE_THROWS_WITH(read_cifar10(dir.path(), Split::kTest, small()),
                        Catch::Contains("not a CIFAR-10 binary batch file"));
  }
  SECTION("label outside 0-9") {
    test::write_small_cifar(dir.path(), kRecords);
    auto bytes = test::make_records(kRecords);
    bytes[2 * kRecordBytes] = 10;
    test::write_bytes(dir.path() / "data_batch_2.bin", bytes);
    REQUIRE_THROWS_WITH(read_cifar10(dir.path(), Split::kTrain, small()),
                        Catch::Contains("data_batch_2.bin") && Catch::Contains("record 2") &&
                            Catch::Contains("label 10"));
  }
}

TEST_CASE("the real files are 30,730,000 bytes by default", "[data]") {
  std::vector<uint8_t> small_file(3073);
  REQUIRE_THROWS_WITH(parse_cifar10_records(small_file, "x.bin", kRecordsPerFile, nullptr, nullptr),
                      Catch::Contains("expected 30730000"));
}

namespace {
// n images whose first pixel byte and label encode their index.
ImageSplit indexed_dataset(int64_t n) {
  ImageSplit d;
  d.images = torch::zeros({n, kCifarImage.channels, kCifarImage.image_size, kCifarImage.image_size},
                          torch::kUInt8);
  d.images.select(1, 0).select(1, 0).select(1, 0).copy_(torch::arange(n) % 256);
  d.images.select(1, 1).select(1, 0).select(1, 0).copy_(torch::arange(n) / 256);
  d.labels = torch::arange(n, torch::kInt64);
  d.class_names = default_class_names();
  return d;
}
}  // namespace

TEST_CASE("a validation split holds out the same n images for a seed", "[data][validation]") {
  const auto data = indexed_dataset(1000);
  const auto a = split_validation(data, 100, 7);
  CHECK(a.val.size() == 100);
  CHECK(a.train.size() == 900);
  CHECK(a.val.class_names == data.class_names);
  // Disjoint and complete, each in the original order, images with their labels.
  const auto all = torch::cat({a.train.labels, a.val.labels});
  CHECK(torch::equal(std::get<0>(all.sort()), data.labels));
  CHECK(torch::equal(std::get<0>(a.val.labels.sort()), a.val.labels));
  CHECK(torch::equal(std::get<0>(a.train.labels.sort()), a.train.labels));
  const auto pixel = a.val.images.select(1, 0).select(1, 0).select(1, 0).to(torch::kInt64) +
                     256 * a.val.images.select(1, 1).select(1, 0).select(1, 0).to(torch::kInt64);
  CHECK(torch::equal(pixel, a.val.labels));
  // Spread over the whole set, not the first or last n.
  CHECK(a.val.labels.min().item<int64_t>() < 100);
  CHECK(a.val.labels.max().item<int64_t>() >= 900);
  // The same seed gives the same images, whatever the global generator did.
  torch::manual_seed(123);
  torch::rand({10});
  const auto b = split_validation(data, 100, 7);
  CHECK(torch::equal(a.val.labels, b.val.labels));
  CHECK_FALSE(torch::equal(a.val.labels, split_validation(data, 100, 8).val.labels));
  // n = 0: no validation images.
  const auto none = split_validation(data, 0, 7);
  CHECK(none.val.size() == 0);
  CHECK(none.train.size() == 1000);
  CHECK_THROWS_WITH(
      split_validation(data, 1000, 7),
      Catch::Contains("validation split of 1000 images") && Catch::Contains("between 0 and 999"));
  CHECK_THROWS_AS(split_validation(data, -1, 7), HoldoutTooLarge);  // resolve/ refuses it
}
