// test_splits.cpp: the splits a run reads, cut to --train-limit and --test-limit
// (the first N images of CIFAR files, N spread over an image folder's classes;
// of an image folder only those decoded); an image folder's val/.
#include <catch2/catch.hpp>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include "cifar/data/splits.h"
#include "image_files.h"
#include "test_helpers.h"

using namespace cifar;
using cifar::test::TempDir;

TEST_CASE("The test and training limits keep the first N images of their splits", "[splits]") {
  TempDir data_dir;
  test::write_full_cifar(data_dir.path(), test::synthetic(10000, 6));
  SplitOptions c{.data_dir = data_dir.path()};
  const ImageSplit all = read_test_split(c);
  REQUIRE(all.size() == 10000);
  c.test_limit = 300;
  c.train_limit = 700;
  const ImageSplit some = read_test_split(c);
  REQUIRE(some.size() == 300);
  CHECK(torch::equal(some.images, all.images.narrow(0, 0, 300)));
  CHECK(torch::equal(some.labels, all.labels.narrow(0, 0, 300)));
  CHECK(read_train_split(c).train.size() == 700);
  c.test_limit = 20000;  // more than there are: all of them
  CHECK(read_test_split(c).size() == 10000);
}

TEST_CASE("A data set's limits prepare only the images kept, the same as a whole read",
          "[splits]") {
  TempDir data_dir;
  test::write_full_cifar(data_dir.path(), test::synthetic(10000, 6));
  SplitOptions c{.data_dir = data_dir.path()};
  c.image.image_size = 40;  // each kept image resized: 50,000 of them took 14 s at 96 px
  DatasetOptions first = c.dataset();
  first.first = 30;
  const ImageSplit cut = read_dataset_split(first, dataset_kind(first), Split::kTest);
  CHECK(cut.size() == 30);  // only those prepared
  const ImageSplit whole = read_test_split(c);
  c.test_limit = 30;
  c.train_limit = 40;
  const RunData run = read_run_data(c);
  REQUIRE(run.test.size() == 30);
  CHECK(torch::equal(run.test.images, whole.images.narrow(0, 0, 30)));
  CHECK(torch::equal(cut.images, run.test.images));
  REQUIRE(run.splits.train.size() == 40);
  c.train_limit = 0;
  CHECK(
      torch::equal(run.splits.train.images, read_run_data(c).splits.train.images.narrow(0, 0, 40)));
  c.val_split = 10;  // held out of the whole split first: all of it read, then cut
  c.train_limit = 40;
  CHECK(read_run_data(c).splits.train.size() == 40);
}

TEST_CASE("The limits take an image folder's images evenly from every class", "[splits]") {
  // An image folder lists its images class by class: the first N would be
  // one class's.
  TempDir data_dir;
  for (const char* split : {"train", "test"}) {
    for (int c = 0; c < 3; ++c) {
      const auto dir = data_dir.path() / split / ("class" + std::to_string(c));
      std::filesystem::create_directories(dir);
      for (int i = 0; i < 4; ++i) {
        const auto pixels = torch::full({32, 32, 3}, 10 * c + i, torch::kUInt8);
        std::ofstream(dir / (std::to_string(i) + ".png"), std::ios::binary)
            << test::encode_png(pixels);
      }
    }
  }
  SplitOptions c{.data_dir = data_dir.path(), .train_limit = 6, .test_limit = 3};
  c.folder.use_cache = false;
  const auto labels = [](const torch::Tensor& t) {
    return std::vector<int64_t>(t.data_ptr<int64_t>(), t.data_ptr<int64_t>() + t.numel());
  };
  CHECK(labels(read_train_split(c).train.labels) == std::vector<int64_t>{0, 0, 1, 1, 2, 2});
  const ImageSplit test = read_test_split(c);
  CHECK(labels(test.labels) == std::vector<int64_t>{0, 1, 2});
  CHECK(test.images[1][0][0][0].item<int>() == 10);  // class1's first image
}

namespace {
// DIR/<split>/class<c>/<i>.png, `per_class` solid images per class, pixel 10 c + i.
void write_split(const std::filesystem::path& dir, const char* split, int classes, int per_class) {
  for (int c = 0; c < classes; ++c) {
    for (int i = 0; i < per_class; ++i) {
      const int v = 10 * c + i;
      test::write_png(dir / split / ("class" + std::to_string(c)) / (std::to_string(i) + ".png"), v,
                      v, v);
    }
  }
}
}  // namespace

TEST_CASE("The limits decode only the images a run uses, the same ones as a whole read",
          "[splits]") {
  TempDir data_dir;
  write_split(data_dir.path(), "train", 3, 10);
  write_split(data_dir.path(), "test", 3, 4);
  SplitOptions c{.data_dir = data_dir.path(), .train_limit = 6, .test_limit = 3, .val_split = 5};
  c.seed = 7;
  const TrainValSplit whole = [&] {  // read whole, then held out and cut
    SplitOptions all = c;
    all.train_limit = 0;
    all.folder.use_cache = false;
    return read_train_split(all);
  }();
  const RunData some = read_run_data(c);
  REQUIRE(some.splits.train.size() == 6);
  REQUIRE(some.splits.val.size() == 5);
  REQUIRE(some.test.size() == 3);
  CHECK(torch::equal(some.splits.val.images, whole.val.images));
  const auto picked = torch::div(torch::arange(6, torch::kInt64) * whole.train.size(), 6, "floor");
  CHECK(torch::equal(some.splits.train.images, whole.train.images.index_select(0, picked)));
  CHECK(torch::equal(some.splits.train.labels, whole.train.labels.index_select(0, picked)));
  // A limited read writes no cache (a read of them all does).
  CHECK_FALSE(std::filesystem::exists(data_dir.path() / ".cifar-cache"));
  // Every file a limited read leaves out may be unreadable: it is never decoded.
  const std::vector<int64_t> used_test{0, 4, 8};  // test/'s 12 files, 3 of them
  for (int64_t i = 0; i < 12; ++i) {
    if (std::find(used_test.begin(), used_test.end(), i) != used_test.end()) continue;
    test::write_text(data_dir.path() / "test" / ("class" + std::to_string(i / 4)) /
                         (std::to_string(i % 4) + ".png"),
                     "not a PNG");
  }
  const ImageSplit test = read_test_split(c);
  REQUIRE(test.size() == 3);
  CHECK(test.images[1][0][0][0].item<int>() == 10);  // class1's first image
  c.test_limit = 0;
  CHECK_THROWS_WITH(read_test_split(c), Catch::Contains("holds 9 files that are not readable "
                                                        "images") &&
                                            Catch::Contains(" and 4 more; remove or replace them"));
}

TEST_CASE("An image folder's val/ validates, and serves as the test split without test/",
          "[splits]") {
  TempDir data_dir;
  write_split(data_dir.path(), "train", 2, 6);
  write_split(data_dir.path(), "val", 2, 3);
  SplitOptions c{.data_dir = data_dir.path()};
  c.folder.use_cache = false;
  RunData run = read_run_data(c);
  CHECK(run.val_folder);
  CHECK(run.test_is_val);
  CHECK(run.splits.train.size() == 12);
  CHECK(run.splits.val.size() == 6);
  CHECK(torch::equal(run.test.images, run.splits.val.images));
  write_split(data_dir.path(), "test", 2, 2);
  run = read_run_data(c);
  CHECK_FALSE(run.test_is_val);
  CHECK(run.splits.val.size() == 6);
  CHECK(run.test.size() == 4);
  CHECK(val_split_beside_val_folder(c).empty());
  c.val_split = 2;  // and val/: which is the validation split? (resolve/ refuses it)
  CHECK_THAT(val_split_beside_val_folder(c),
             Catch::Contains("--val-split 2 holds out training images") &&
                 Catch::Contains("has a val/ folder"));
  CHECK_THROWS_AS(read_run_data(c), std::invalid_argument);
}

TEST_CASE("val/ or test/ classes that train/ lacks are refused before anything is decoded",
          "[splits]") {
  for (const char* split : {"val", "test"}) {
    TempDir data_dir;
    write_split(data_dir.path(), "train", 2, 3);
    write_split(data_dir.path(), split, 3, 1);  // class2: not in train/
    SplitOptions c{.data_dir = data_dir.path()};
    test::LogCapture log;
    CHECK_THROWS_WITH(read_run_data(c),
                      Catch::Contains((data_dir.path() / split).string() +
                                      " holds class folder(s) 'class2' that " +
                                      (data_dir.path() / "train").string() + " lacks"));
    CHECK(log.text().find("decoding") == std::string::npos);
    CHECK_FALSE(std::filesystem::exists(data_dir.path() / ".cifar-cache"));
  }
}
