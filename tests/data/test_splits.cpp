// test_splits.cpp: the splits a run reads, cut to --train-limit and --test-limit.
#include <catch2/catch.hpp>

#include "cifar/data/splits.h"
#include "test_helpers.h"

using namespace cifar;
using cifar::test::TempDir;

TEST_CASE("The test and training limits keep the first N images of their splits", "[splits]") {
  TempDir data_dir;
  test::write_full_cifar(data_dir.path(), test::synthetic(10000, 6));
  SplitOptions c{.data_dir = data_dir.path()};
  const Cifar10Dataset all = read_test_split(c);
  REQUIRE(all.size() == 10000);
  c.test_limit = 300;
  c.train_limit = 700;
  const Cifar10Dataset some = read_test_split(c);
  REQUIRE(some.size() == 300);
  CHECK(torch::equal(some.images, all.images.narrow(0, 0, 300)));
  CHECK(torch::equal(some.labels, all.labels.narrow(0, 0, 300)));
  CHECK(read_train_split(c).train.size() == 700);
  c.test_limit = 20000;  // more than there are: all of them
  CHECK(read_test_split(c).size() == 10000);
}
