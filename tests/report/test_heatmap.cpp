// The confusion heat map: decoded back with libpng, size and cell colours.
#include <png.h>
#include <catch2/catch.hpp>

#include <array>
#include <vector>

#include "cifar/report/heatmap.h"

namespace {

struct Decoded {
  int width = 0, height = 0;
  std::vector<uint8_t> rgb;  // (height, width, 3) uint8
  std::array<int, 3> at(int x, int y) const {
    const auto* p =
        &rgb[(static_cast<size_t>(y) * static_cast<size_t>(width) + static_cast<size_t>(x)) * 3];
    return {p[0], p[1], p[2]};
  }
};

Decoded decode(const std::vector<uint8_t>& png) {
  png_image image{};
  image.version = PNG_IMAGE_VERSION;
  REQUIRE(png_image_begin_read_from_memory(&image, png.data(), png.size()));
  image.format = PNG_FORMAT_RGB;
  Decoded d;
  d.width = static_cast<int>(image.width);
  d.height = static_cast<int>(image.height);
  d.rgb.resize(PNG_IMAGE_SIZE(image));
  REQUIRE(png_image_finish_read(&image, nullptr, d.rgb.data(), 0, nullptr));
  return d;
}

}  // namespace

TEST_CASE("a 10-class heat map is a 321x321 PNG coloured by row share", "[heatmap]") {
  std::vector<int64_t> confusion(100, 0);
  confusion[0 * 10 + 0] = 1000;  // row 0: all correct
  confusion[1 * 10 + 1] = 50;    // row 1: half correct, half called class 2
  confusion[1 * 10 + 2] = 50;
  confusion[2 * 10 + 2] = 7;  // row 2: all correct, few images (row-normalised: as dark as row 0)
  // row 3 and later: empty rows stay white
  const auto heat = cifar::confusion_heatmap_png(confusion, 10);
  CHECK(heat.width == 321);
  CHECK(heat.height == 321);
  const auto d = decode(heat.png);
  REQUIRE(d.width == 321);
  REQUIRE(d.height == 321);
  auto cell = [&](int row, int col) { return d.at(col * 32 + 16, row * 32 + 16); };
  const std::array<int, 3> dark{8, 48, 107}, mid{107, 174, 214}, white{247, 251, 255},
      grid{160, 160, 160};
  CHECK(cell(0, 0) == dark);
  CHECK(cell(0, 1) == white);
  CHECK(cell(1, 1) == mid);
  CHECK(cell(1, 2) == mid);
  CHECK(cell(2, 2) == dark);
  CHECK(cell(5, 5) == white);
  CHECK(d.at(0, 0) == grid);
  CHECK(d.at(32, 100) == grid);
  CHECK(d.at(320, 320) == grid);
}

TEST_CASE("the cell size sets the picture's size", "[heatmap]") {
  const std::vector<int64_t> confusion{3, 1, 0, 4};
  const auto heat = cifar::confusion_heatmap_png(confusion, 2, 40);
  CHECK(heat.width == 81);
  CHECK(decode(heat.png).height == 81);
}

TEST_CASE("a confusion matrix of the wrong size is refused", "[heatmap]") {
  const std::vector<int64_t> confusion(99, 1);
  CHECK_THROWS_WITH(cifar::confusion_heatmap_png(confusion, 10),
                    Catch::Contains("99 counts for 10 classes"));
}

TEST_CASE("the heat map stays about 960 pixels a side at any class count", "[heatmap]") {
  const std::array<int, 3> dark{8, 48, 107}, white{247, 251, 255};
  for (const int64_t n : {2, 10, 11, 100, 240, 241, 479, 481, 1000, 2001}) {
    CAPTURE(n);
    // Every image called right: the diagonal (of classes, and of blocks) is dark.
    std::vector<int64_t> confusion(static_cast<size_t>(n * n), 0);
    for (int64_t c = 0; c < n; ++c) confusion[static_cast<size_t>(c * n + c)] = 3;
    const auto layout = cifar::heatmap_layout(n);
    const auto heat =
        cifar::confusion_heatmap_png(confusion, n, layout.cell_pixels, layout.classes_per_cell);
    CHECK(heat.width == heat.height);
    CHECK(heat.width <= 961);
    CHECK(heat.width >= (n <= 10 ? 65 : 480));  // readable as a whole, not a thumbnail
    const auto d = decode(heat.png);
    REQUIRE(d.width == heat.width);
    const int cells = (d.width - 1) / layout.cell_pixels;
    CHECK(cells == (n + layout.classes_per_cell - 1) / layout.classes_per_cell);
    const auto centre = [&](int row, int col) {
      return d.at(col * layout.cell_pixels + layout.cell_pixels / 2,
                  row * layout.cell_pixels + layout.cell_pixels / 2);
    };
    CHECK(centre(0, 0) == dark);
    CHECK(centre(cells - 1, cells - 1) == dark);
    CHECK(centre(0, cells - 1) == white);
  }
}
