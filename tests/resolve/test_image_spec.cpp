// test_image_spec.cpp: the model's images resolved once from the options and
// the data-set kind's entry (resolve/run_data.h image_spec): the side, the
// preparation, and whole training images only where random resized crops apply.
#include <catch2/catch.hpp>

#include "cifar/data/crops.h"
#include "cifar/data/dataset.h"
#include "cifar/resolve/run_data.h"

using namespace cifar;

TEST_CASE("image_spec: the side and preparation given, else CIFAR's and the kind's", "[resolve]") {
  const DatasetKindEntry& cifar = dataset_entry(DatasetKind{"cifar10"});
  const DatasetKindEntry& folder = dataset_entry(DatasetKind{"folder"});
  TrainConfig c;
  ImageSpec image = image_spec(c, folder, /*augments=*/false);
  CHECK(image.image_size == kCifarImageSize);
  CHECK(image.prep == kTorchvisionEval);
  CHECK(image.whole_size == 0);
  CHECK(image_spec(c, cifar, false).prep == kWholeImage);

  c.image_size = 48;
  c.crop_mode = "squash";
  c.crop_pct = 0.9;
  image = image_spec(c, folder, false);
  CHECK(image.image_size == 48);
  CHECK(image.prep == ImagePrep{CropMode::kSquash, 0.9});
  c.crop_mode = "auto";
  CHECK(image_spec(c, folder, false).prep == ImagePrep{CropMode::kCenter, 0.9});
}

TEST_CASE("image_spec: whole training images for an augmenting run of a kind cropped so",
          "[resolve]") {
  TrainConfig c;
  c.image_size = 24;
  c.crop_scale = 0.35;
  const ImageSpec image = image_spec(c, dataset_entry(DatasetKind{"folder"}), /*augments=*/true);
  CHECK(image.whole_size == kWholeScale * 24);
  CHECK(image.min_scale == 0.35);
  // CIFAR augments by translations; --crop-scale 0 asks for them too.
  CHECK(image_spec(c, dataset_entry(DatasetKind{"cifar10"}), true).whole_size == 0);
  c.crop_scale = 0;
  CHECK(image_spec(c, dataset_entry(DatasetKind{"folder"}), true).whole_size == 0);
}
