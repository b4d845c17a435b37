// test_rank_agreement.cpp: the ranks' fingerprints compared, each difference named.
#include <catch2/catch.hpp>

#include "cifar/resolve/rank_agreement.h"

using namespace cifar;

TEST_CASE("describe_disagreement names each rank's difference with both values", "[settings]") {
  const RunFingerprint zero = {{"--lr", "0.001"}, {"test data", "10 images, CRC-32C 0"}};
  RunFingerprint one = zero;
  one[0].second = "0.2";
  CHECK(describe_disagreement({zero, zero}).empty());
  const std::string why = describe_disagreement({zero, one, zero});
  CHECK(why ==
        "the 3 processes were not started alike: rank 1's --lr is 0.2, rank 0's is 0.001. Start "
        "every process with the same options (a --config file helps) and the same data");
}
