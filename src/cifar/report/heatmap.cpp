// heatmap.cpp: colour each cell by its row share, encode with libpng.
#include "cifar/report/heatmap.h"

#include <fmt/format.h>
#include <png.h>

#include <algorithm>
#include <array>
#include <cmath>
#include <stdexcept>

namespace cifar {
namespace {

using Rgb = std::array<uint8_t, 3>;

// A white-to-dark-blue ramp (matplotlib's "Blues" at 0, 0.5 and 1).
Rgb blues(double t) {
  constexpr std::array<Rgb, 3> stops{{{247, 251, 255}, {107, 174, 214}, {8, 48, 107}}};
  t = std::clamp(t, 0.0, 1.0) * 2.0;
  const size_t i = std::min<size_t>(static_cast<size_t>(t), 1);
  const double f = t - static_cast<double>(i);
  Rgb out{};
  for (size_t c = 0; c < 3; ++c) {
    out[c] = static_cast<uint8_t>(std::lround(stops[i][c] + f * (stops[i + 1][c] - stops[i][c])));
  }
  return out;
}

// The largest side the documented layout allows, grid lines included.
constexpr int64_t kMaxSide = 961;
constexpr int64_t kMinCell = 4;

}  // namespace

HeatmapLayout heatmap_layout(int64_t num_classes) {
  if (num_classes <= 10) return {};
  const int64_t most_cells = (kMaxSide - 1) / kMinCell;  // 240
  const int64_t per_cell = (num_classes + most_cells - 1) / most_cells;
  const int64_t cells = (num_classes + per_cell - 1) / per_cell;
  return {.cell_pixels = static_cast<int>(std::max(kMinCell, (kMaxSide - 1) / cells)),
          .classes_per_cell = per_cell};
}

HeatmapPng confusion_heatmap_png(std::span<const int64_t> confusion, int64_t num_classes,
                                 int cell_pixels, int64_t classes_per_cell) {
  const auto n = static_cast<size_t>(num_classes);
  if (num_classes <= 0 || confusion.size() != n * n) {
    throw std::invalid_argument(
        fmt::format("confusion_heatmap_png: {} counts for {} classes (need {})", confusion.size(),
                    num_classes, num_classes * num_classes));
  }
  if (cell_pixels < 2 || classes_per_cell < 1) {
    throw std::invalid_argument(
        fmt::format("confusion_heatmap_png: cell_pixels {} < 2 or classes_per_cell {} < 1",
                    cell_pixels, classes_per_cell));
  }
  // Blocks of k x k classes: their summed counts, and each block row's total.
  const auto k = static_cast<size_t>(classes_per_cell);
  const size_t cells = (n + k - 1) / k;
  std::vector<int64_t> block(cells * cells, 0), block_row(cells, 0);
  for (size_t r = 0; r < n; ++r) {
    for (size_t c = 0; c < n; ++c) {
      block[(r / k) * cells + c / k] += confusion[r * n + c];
      block_row[r / k] += confusion[r * n + c];
    }
  }
  // One grey line before each cell and one after the last: cells * cell + 1.
  const auto cell = static_cast<size_t>(cell_pixels);
  const size_t side = cells * cell + 1;
  constexpr Rgb kGrid{160, 160, 160};
  std::vector<uint8_t> rgb(side * side * 3);  // (side, side, 3) uint8
  for (size_t r = 0; r < cells; ++r) {
    const int64_t row_total = block_row[r];
    for (size_t c = 0; c < cells; ++c) {
      const double share =
          row_total > 0 ? static_cast<double>(block[r * cells + c]) / static_cast<double>(row_total)
                        : 0.0;
      const Rgb colour = blues(share);
      for (size_t y = 0; y < cell; ++y) {
        for (size_t x = 0; x < cell; ++x) {
          const bool grid = y == 0 || x == 0;
          const size_t py = r * cell + y, px = c * cell + x;
          std::copy_n((grid ? kGrid : colour).begin(), 3, &rgb[(py * side + px) * 3]);
        }
      }
    }
  }
  for (size_t i = 0; i < side; ++i) {  // the last row and column of grid lines
    std::copy_n(kGrid.begin(), 3, &rgb[((side - 1) * side + i) * 3]);
    std::copy_n(kGrid.begin(), 3, &rgb[(i * side + side - 1) * 3]);
  }

  png_image image{};
  image.version = PNG_IMAGE_VERSION;
  image.width = static_cast<png_uint_32>(side);
  image.height = static_cast<png_uint_32>(side);
  image.format = PNG_FORMAT_RGB;
  png_alloc_size_t size = 0;
  // First call sizes the output, second writes it.
  if (!png_image_write_to_memory(&image, nullptr, &size, 0, rgb.data(), 0, nullptr)) {
    throw std::runtime_error(
        fmt::format("libpng could not encode the heat map: {}", image.message));
  }
  HeatmapPng out;
  out.png.resize(size);
  if (!png_image_write_to_memory(&image, out.png.data(), &size, 0, rgb.data(), 0, nullptr)) {
    throw std::runtime_error(
        fmt::format("libpng could not encode the heat map: {}", image.message));
  }
  out.png.resize(size);
  out.height = static_cast<int>(side);
  out.width = static_cast<int>(side);
  png_image_free(&image);
  return out;
}

}  // namespace cifar
