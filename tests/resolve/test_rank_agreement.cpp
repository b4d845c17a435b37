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
  // Issue 54: machines that resolve --amp auto apart are named, not the options.
  RunFingerprint avx2 = zero;
  avx2.emplace_back(kPrecisionEntry,
                    "float32 (--amp auto: the CPU has neither AVX512-BF16 nor "
                    "AMX-BF16: bf16 is emulated)");
  RunFingerprint amx = zero;
  amx.emplace_back(kPrecisionEntry, "bf16 autocast (--amp auto: the CPU has AMX-BF16)");
  const std::string apart = describe_disagreement({amx, avx2});
  CHECK(apart.find("rank 1's precision is float32 (--amp auto: ") != std::string::npos);
  CHECK(apart.find("Start every process") == std::string::npos);
  CHECK(apart.find("give every process the same explicit --amp") != std::string::npos);
  RunFingerprint other_data = zero;
  other_data[1].second = "10 images, CRC-32C 1";
  CHECK(
      describe_disagreement({zero, other_data}).ends_with("Start every process on the same data"));
}
