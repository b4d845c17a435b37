// test_image_dimensions.cpp: a PNG's or JPEG's size from its header, without
// decoding (how large a folder's photos are, before any is decoded).
#include <catch2/catch.hpp>

#include "cifar/formats/image.h"
#include "formats/image_encoders.h"

using namespace cifar;
using cifar::test::encode_jpeg;
using cifar::test::encode_png;
using cifar::test::JpegSpec;

namespace {

std::optional<std::pair<int64_t, int64_t>> dimensions(const std::string& bytes) {
  return image_dimensions(std::span(reinterpret_cast<const uint8_t*>(bytes.data()), bytes.size()));
}

}  // namespace

TEST_CASE("a PNG's and a JPEG's size come from their headers", "[image][dimensions]") {
  const auto hwc = torch::zeros({37, 53, 3}, torch::kUInt8);
  CHECK(dimensions(encode_png(hwc)) == std::pair<int64_t, int64_t>{37, 53});
  CHECK(dimensions(encode_jpeg(hwc)) == std::pair<int64_t, int64_t>{37, 53});
  // Behind an Exif segment, in a progressive frame (SOF2), from the first bytes alone.
  const std::string exif = encode_jpeg(hwc, JpegSpec{.name = "exif", .exif_rotated = true});
  CHECK(dimensions(exif) == std::pair<int64_t, int64_t>{37, 53});
  CHECK(dimensions(encode_jpeg(hwc, JpegSpec{.name = "progressive", .progressive = true})) ==
        std::pair<int64_t, int64_t>{37, 53});
  CHECK(dimensions(exif.substr(0, 300)) == std::pair<int64_t, int64_t>{37, 53});
  // No header: none.
  CHECK_FALSE(dimensions("not an image"));
  CHECK_FALSE(dimensions(exif.substr(0, 20)));
  CHECK_FALSE(dimensions(encode_png(hwc).substr(0, 20)));
}
