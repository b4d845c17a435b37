// test_stem_text.cpp: the ResNet stem as text (models.h), the one spelling
// that --stem, config files, checkpoints and weights metadata share.
#include <catch2/catch.hpp>

#include "cifar/model/models.h"

using namespace cifar;

TEST_CASE("the ResNet stem reads back from its text", "[models]") {
  CHECK(to_string(ResNetStem::kCifar) == "cifar");
  CHECK(to_string(ResNetStem::kImageNet) == "imagenet");
  for (const ResNetStem stem : {ResNetStem::kCifar, ResNetStem::kImageNet}) {
    CHECK(parse_stem(to_string(stem)) == stem);
  }
  CHECK_THROWS_AS(parse_stem("ImageNet"), std::runtime_error);  // a file's: config/ refuses --stem
}
