// test_cifar100.cpp: the CIFAR-100 reader and the data-set kinds (detection,
// normalisation, class checks) on files the tests write in the official layout.
#include <catch2/catch.hpp>

#include <fstream>

#include "cifar/data/cifar100.h"
#include "cifar/data/dataset.h"
#include "cifar/data/splits.h"
#include "test_helpers.h"

using namespace cifar;
using cifar::test::TempDir;

namespace {
// Records whose fine label is r % 100, coarse label r % 20, and whose red
// bytes are r, green the fine label, blue 7.
std::vector<uint8_t> cifar100_records(int64_t records) {
  std::vector<uint8_t> bytes;
  for (int64_t r = 0; r < records; ++r) {
    bytes.push_back(static_cast<uint8_t>(r % 20));
    bytes.push_back(static_cast<uint8_t>(r % 100));
    bytes.insert(bytes.end(), 1024, static_cast<uint8_t>(r));
    bytes.insert(bytes.end(), 1024, static_cast<uint8_t>(r % 100));
    bytes.insert(bytes.end(), 1024, static_cast<uint8_t>(7));
  }
  return bytes;
}

void write_names(const std::filesystem::path& path, const std::string& stem, int n) {
  std::ofstream out(path);
  for (int i = 0; i < n; ++i) out << stem << i << '\n';
}

// A small CIFAR-100 folder: train.bin (train records), test.bin (test records).
void write_cifar100(const std::filesystem::path& dir, int64_t train, int64_t test) {
  test::write_bytes(dir / "train.bin", cifar100_records(train));
  test::write_bytes(dir / "test.bin", cifar100_records(test));
  write_names(dir / "fine_label_names.txt", "fine", 100);
  write_names(dir / "coarse_label_names.txt", "coarse", 20);
}
}  // namespace

TEST_CASE("CIFAR-100 records are read with their fine or coarse labels", "[data][cifar100]") {
  TempDir dir;
  write_cifar100(dir.path(), 250, 30);
  const ImageSplit fine = read_cifar100(dir.path(), Split::kTrain, LabelSet::kFine);
  REQUIRE(fine.size() == 250);
  CHECK(fine.images.sizes() == torch::IntArrayRef{250, 3, 32, 32});
  CHECK(fine.class_names.size() == 100);
  CHECK(fine.class_names[42] == "fine42");
  for (int64_t r : {0, 1, 99, 123, 249}) {
    CHECK(fine.labels[r].item<int64_t>() == r % 100);
    CHECK(fine.images[r][0][3][4].item<int>() == r % 256);
    CHECK(fine.images[r][1][31][31].item<int>() == r % 100);
    CHECK(fine.images[r][2][0][0].item<int>() == 7);
  }
  const ImageSplit coarse = read_cifar100(dir.path(), Split::kTest, LabelSet::kCoarse);
  REQUIRE(coarse.size() == 30);
  CHECK(coarse.class_names.size() == 20);
  CHECK(coarse.class_names[19] == "coarse19");
  CHECK(coarse.labels[25].item<int64_t>() == 5);
}

TEST_CASE("CIFAR-100 reader errors name the file, the problem and the fix", "[data][cifar100]") {
  TempDir dir;
  write_cifar100(dir.path(), 20, 10);
  SECTION("a missing file") {
    std::filesystem::remove(dir.path() / "test.bin");
    REQUIRE_THROWS_WITH(
        read_cifar100(dir.path(), Split::kTest, LabelSet::kFine),
        Catch::Contains("test.bin is missing") && Catch::Contains("download_cifar100.sh"));
  }
  SECTION("not a whole number of records") {
    auto bytes = cifar100_records(10);
    bytes.resize(bytes.size() - 5);
    test::write_bytes(dir.path() / "test.bin", bytes);
    REQUIRE_THROWS_WITH(read_cifar100(dir.path(), Split::kTest, LabelSet::kFine),
                        Catch::Contains("test.bin is 30735 bytes") &&
                            Catch::Contains("3074-byte records") && Catch::Contains("truncated"));
  }
  SECTION("an empty file") {
    test::write_bytes(dir.path() / "train.bin", {});
    REQUIRE_THROWS_WITH(read_cifar100(dir.path(), Split::kTrain, LabelSet::kFine),
                        Catch::Contains("train.bin is empty (0 bytes), where CIFAR-100 has 50000 "
                                        "images of 3074 bytes") &&
                            Catch::Contains("download_cifar100.sh"));
  }
  SECTION("bytes past the official file's records") {  // never called truncated
    auto bytes = cifar100_records(10000);
    bytes.resize(bytes.size() + 5, 0);
    test::write_bytes(dir.path() / "test.bin", bytes);
    REQUIRE_THROWS_WITH(read_cifar100(dir.path(), Split::kTest, LabelSet::kFine),
                        Catch::Contains("5 bytes follow its last whole record (bytes were "
                                        "appended)") &&
                            !Catch::Contains("truncated"));
  }
  SECTION("a fine label in two coarse classes") {
    auto bytes = cifar100_records(150);  // record 142's fine label is 42, as record 42's
    bytes[142 * kCifar100RecordBytes] = 3;
    test::write_bytes(dir.path() / "train.bin", bytes);
    REQUIRE_THROWS_WITH(read_cifar100(dir.path(), Split::kTrain, LabelSet::kFine),
                        Catch::Contains("train.bin: record 142 puts fine label 42 in coarse class "
                                        "3, record 42 in coarse class 2"));
  }
  SECTION("a fine label outside 0-99") {
    auto bytes = cifar100_records(10);
    bytes[3 * kCifar100RecordBytes + 1] = 100;
    test::write_bytes(dir.path() / "train.bin", bytes);
    REQUIRE_THROWS_WITH(
        read_cifar100(dir.path(), Split::kTrain, LabelSet::kCoarse),
        Catch::Contains("train.bin: record 3") && Catch::Contains("fine label 100"));
  }
  SECTION("a name file with another count") {
    write_names(dir.path() / "coarse_label_names.txt", "c", 19);
    REQUIRE_THROWS_WITH(read_cifar100(dir.path(), Split::kTrain, LabelSet::kCoarse),
                        Catch::Contains("coarse_label_names.txt names 19 classes, expected 20"));
  }
  SECTION("--labels' names") {  // config/ refuses others (tests/config/test_refused_values.cpp)
    REQUIRE(find_name(kLabelSetNames, "coarse") == LabelSet::kCoarse);
    REQUIRE_FALSE(find_name(kLabelSetNames, "medium").has_value());
  }
}

TEST_CASE("the data set kind is detected from what the folder holds", "[data][dataset]") {
  TempDir dir;
  SECTION("cifar10, cifar100 and image folders") {
    test::write_small_cifar(dir.path(), 2);
    CHECK(detect_dataset(dir.path()) == DatasetKind{"cifar10"});
    TempDir other;
    write_cifar100(other.path(), 2, 2);
    CHECK(detect_dataset(other.path()) == DatasetKind{"cifar100"});
    TempDir images;
    std::filesystem::create_directories(images.path() / "train" / "cat");
    CHECK(detect_dataset(images.path()) == DatasetKind{"folder"});
  }
  SECTION("none: what it holds and what each kind needs") {
    test::write_bytes(dir.path() / "readme.txt", {1});
    REQUIRE_THROWS_WITH(detect_dataset(dir.path()), Catch::Contains("holds no data set") &&
                                                        Catch::Contains("readme.txt") &&
                                                        Catch::Contains("data_batch_1.bin") &&
                                                        Catch::Contains("fine_label_names.txt") &&
                                                        Catch::Contains("train/<class>/"));
  }
  SECTION("two: both named, and --dataset to choose") {
    test::write_small_cifar(dir.path(), 2);
    write_cifar100(dir.path(), 2, 2);
    REQUIRE_THROWS_WITH(detect_dataset(dir.path()),
                        Catch::Contains("more than one data set") &&
                            Catch::Contains("cifar10 (data_batch_1.bin)") &&
                            Catch::Contains("cifar100 (train.bin)") &&
                            Catch::Contains("--dataset"));
    SplitOptions options;
    options.data_dir = dir.path();
    options.kind = DatasetKind{"cifar100"};
    CHECK(read_test_split(options).class_names.size() == 100);
  }
  SECTION("a missing folder says how to get the data") {
    REQUIRE_THROWS_WITH(
        detect_dataset(dir.path() / "nope"),
        Catch::Contains("does not exist") && Catch::Contains("download_cifar10.sh"));
  }
  CHECK_THROWS_AS(dataset_request("imagenet"), std::invalid_argument);  // config/ refuses it
  CHECK_FALSE(dataset_request("auto").has_value());
}

TEST_CASE("a run's data set carries its classes and normalisation", "[data][dataset]") {
  TempDir dir;
  write_cifar100(dir.path(), 40, 10);
  SplitOptions options;
  options.data_dir = dir.path();
  options.test_limit = 4;
  const RunData fine = read_run_data(options);
  CHECK(fine.dataset.kind == DatasetKind{"cifar100"});
  CHECK(fine.dataset.id() == "cifar100");
  CHECK(fine.dataset.num_classes() == 100);
  CHECK(fine.dataset.normalization == cifar100_normalization());
  CHECK(fine.test.size() == 4);
  options.test_limit = 0;
  options.val_split = 5;
  options.labels = LabelSet::kCoarse;
  const RunData coarse = read_run_data(options);
  CHECK(coarse.dataset.id() == "cifar100-coarse");
  CHECK(coarse.dataset.num_classes() == 20);
  CHECK(coarse.splits.val.size() == 5);
  CHECK(coarse.splits.train.size() == 35);
}

TEST_CASE("an image folder's normalisation is measured on its images", "[data][dataset]") {
  ImageSplit split;
  split.images = torch::zeros({4, 3, 32, 32}, torch::kUInt8);
  split.images.select(1, 0).fill_(255);                  // red: all 1
  split.images.narrow(0, 0, 2).select(1, 1).fill_(255);  // green: half 1
  split.labels = torch::zeros({4}, torch::kInt64);
  const Normalization n = measured_normalization(split);
  CHECK(n.mean == std::array<double, 3>{1.0, 0.5, 0.0});
  CHECK(n.std == std::array<double, 3>{0.001, 0.5, 0.001});
}

TEST_CASE("a model's classes must be the data's, in order", "[data][dataset]") {
  const std::vector<std::string> a{"cat", "dog"}, b{"dog", "cat"}, c{"cat", "dog", "emu"};
  CHECK_NOTHROW(check_same_classes(a, "checkpoint x.pt", a, "--data d"));
  REQUIRE_THROWS_WITH(check_same_classes(a, "checkpoint x.pt", b, "--data d"),
                      Catch::Contains("checkpoint x.pt was trained on 2 classes (cat, dog)") &&
                          Catch::Contains("--data d holds 2 classes (dog, cat)") &&
                          Catch::Contains("class 0 is 'cat' in one and 'dog' in the other"));
  REQUIRE_THROWS_WITH(check_same_classes(a, "m", c, "d"), Catch::Contains("3 classes"));
}
