// test_kept_images.cpp: an image folder's cache keeps each photo decoded
// and reduced to its tier (core/image_prep.h: kept_side), not prepared, so
// another image size or preparation of the tier decodes nothing again; a
// data set's val/ read as a plain class folder (cifar-eval's --data DIR/val)
// shares the data set's cache.
#include <catch2/catch.hpp>

#include "cifar/data/image_cache.h"
#include "cifar/data/image_folder.h"
#include "cifar/formats/image.h"
#include "data/image_files.h"
#include "test_helpers.h"

using namespace cifar;
using cifar::test::DecodeCounter;
using cifar::test::encode_png;
using cifar::test::LogCapture;
using cifar::test::TempDir;
using cifar::test::write_text;
namespace fs = std::filesystem;

namespace {

// An (H, W, 3) image of smooth gradients, so that each resize shows.
torch::Tensor smooth_gradient(int64_t h, int64_t w, int seed) {
  auto y = torch::arange(h).view({h, 1, 1}).expand({h, w, 3});
  auto x = torch::arange(w).view({1, w, 1}).expand({h, w, 3});
  auto c = torch::arange(3).view({1, 1, 3}).expand({h, w, 3});
  return ((y * 7 + x * 3 + c * 50 + seed * 40) % 256).to(torch::kUInt8).contiguous();
}

// train/ and val/, two classes, photos of 600 x 400 and 48 x 40 (one a class each).
void photo_folder_of_sizes(const fs::path& dir) {
  for (const char* split : {"train", "val"}) {
    write_text(dir / split / "cat" / "big.png", encode_png(smooth_gradient(600, 400, 1)));
    write_text(dir / split / "dog" / "small.png", encode_png(smooth_gradient(48, 40, 2)));
  }
}

}  // namespace

TEST_CASE("photos are kept reduced to their tier, never enlarged", "[data][kept_images]") {
  CHECK(kept_side(32, kWholeImage) == 256);
  CHECK(kept_side(224, kTorchvisionEval) == 256);  // resized to 256 first
  CHECK(kept_side(224, kTorchvisionEval, 448) == 512);
  CHECK(kept_side(300, kWholeImage) == 512);
  const auto big = smooth_gradient(600, 400, 1).permute({2, 0, 1}).contiguous();  // (3, 600, 400)
  CHECK(reduce_image(big, 256).sizes() == torch::IntArrayRef({3, 384, 256}));
  const auto small = smooth_gradient(48, 40, 2).permute({2, 0, 1}).contiguous();
  CHECK(reduce_image(small, 256).data_ptr() == small.data_ptr());  // as it is
}

TEST_CASE("another image size or preparation of the tier decodes nothing again",
          "[data][kept_images]") {
  TempDir dir;
  photo_folder_of_sizes(dir.path());
  DecodeCounter reader;
  const auto first = reader.read(dir.path());
  CHECK(reader.decodes == 1);
  reader.options.image.image_size = 64;
  reader.options.image.prep = kTorchvisionEval;
  LogCapture log;
  const auto second = reader.read(dir.path());
  CHECK(reader.decodes == 1);
  CHECK_THAT(log.text(),
             Catch::Contains("2 images read from the cache") && Catch::Contains("nothing decoded"));
  CHECK(second.images.sizes() == torch::IntArrayRef({2, 3, 64, 64}));
  // Each image is prepared from its kept copy: the big photo from its 256 px
  // reduction, the small one from itself, as cifar-predict prepares them.
  for (const auto& [i, name] : {std::pair{0, "cat/big.png"}, std::pair{1, "dog/small.png"}}) {
    const auto rgb = read_image(dir.path() / "train" / name);
    CHECK(torch::equal(second.images[i],
                       prepare_image(reduce_image(rgb, 256), 64, kTorchvisionEval)));
    CHECK(torch::equal(first.images[i], prepare_image(reduce_image(rgb, 256), 32, kWholeImage)));
  }
  // A side beyond the tier (300 px: 512) is another copy: decoded once more.
  reader.options.image.image_size = 300;
  reader.read(dir.path());
  CHECK(reader.decodes == 2);
}

TEST_CASE("a data set's val/ read as a class folder shares the data set's cache",
          "[data][kept_images]") {
  TempDir dir;
  photo_folder_of_sizes(dir.path());
  DecodeCounter reader;
  const auto val = read_image_folder(dir.path(), Split::kVal, reader.options);
  CHECK(reader.decodes == 1);
  const auto classes =
      read_class_folder(dir.path() / "val/", {"cat", "dog"}, "the model", reader.options);
  CHECK(reader.decodes == 1);
  CHECK(torch::equal(val.images, classes.images));
  CHECK(fs::is_regular_file(dir.path() / ".cifar-cache" / "val.bin"));
  CHECK_FALSE(fs::exists(dir.path() / "val" / ".cifar-cache"));
  // A class folder outside a data set is not cached: a cache inside it would
  // be a hidden folder, a class to torchvision's ImageFolder.
  fs::rename(dir.path() / "val", dir.path() / "photos");
  read_class_folder(dir.path() / "photos", {"cat", "dog"}, "the model", reader.options);
  read_class_folder(dir.path() / "photos", {"cat", "dog"}, "the model", reader.options);
  CHECK(reader.decodes == 3);
  CHECK_FALSE(fs::exists(dir.path() / "photos" / ".cifar-cache"));
}
