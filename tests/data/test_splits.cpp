// test_splits.cpp: the splits a run reads, cut to --train-limit and --test-limit
// (the first N images of CIFAR files, N spread over an image folder's classes).
#include <catch2/catch.hpp>

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
