// test_normalization_flags.cpp: --mean and --std as typed.
#include <catch2/catch.hpp>

#include "cifar/config/normalization_flags.h"
#include "cifar/core/errors.h"

using namespace cifar;

TEST_CASE("normalisation flags (--mean, --std) take three numbers each, both or neither",
          "[config]") {
  CHECK_FALSE(normalization_from_flags("", ""));
  const auto n = normalization_from_flags("0.5,0.4,0.3", "0.2 0.25 0.3");
  REQUIRE(n);
  CHECK(n->mean == std::array<double, 3>{0.5, 0.4, 0.3});
  CHECK(n->std == std::array<double, 3>{0.2, 0.25, 0.3});
  CHECK_THROWS_WITH(normalization_from_flags("0.5,0.5,0.5", ""), Catch::Contains("give --std too"));
  CHECK_THROWS_WITH(normalization_from_flags("0.5,0.5", "1,1,1"),
                    Catch::Contains("--mean takes three numbers") && Catch::Contains("'0.5,0.5'"));
  CHECK_THROWS_WITH(normalization_from_flags("0.5,0.5,x", "1,1,1"), Catch::Contains("'0.5,0.5,x'"));
  CHECK_THROWS_WITH(normalization_from_flags("0.5,0.5,0.5", "1,0,1"), Catch::Contains("> 0"));
  CHECK_THROWS_WITH(normalization_from_flags("0.5,0.5,0.5", "1,1,nan"),
                    Catch::Contains("--std takes three numbers"));
  CHECK_THROWS_AS(normalization_from_flags("1,2,3,4", "1,1,1"), UsageError);
}

TEST_CASE("one normalisation flag: three finite numbers", "[config]") {
  CHECK(parse_channels("--mean", " 0.5, 0.25 ,1e-1") == std::array<double, 3>{0.5, 0.25, 0.1});
  CHECK_THROWS_WITH(parse_channels("--mean", "0.5,,0.5"), Catch::Contains("--mean takes three"));
  CHECK_THROWS_WITH(parse_channels("--std", "1,1,inf"), Catch::Contains("'1,1,inf'"));
  CHECK_THROWS_AS(parse_channels("--std", ""), UsageError);
}
