// heatmap.h: a confusion matrix drawn as a heat-map PNG, for TensorBoard.
//
// Each cell is a square of `cell_pixels`, coloured by its share of its row
// (row = true class): white for none through dark blue for all, so the
// diagonal shows per-class recall and off-diagonal cells the confusions,
// whatever the class sizes. Thin grey lines separate the cells. The PNG is
// encoded in memory with libpng's simplified API (no text in the picture:
// TensorBoard shows the tag, scripts/plot-run draws a labelled version).
#pragma once

#include <cstdint>
#include <span>
#include <vector>

namespace cifar {

struct HeatmapPng {
  std::vector<uint8_t> png;  // the encoded file
  int height = 0;
  int width = 0;
};

// How the heat map of `num_classes` classes is drawn so that it stays about
// 960 pixels a side (at most 961) at any class count: 32-pixel cells up to
// ten classes, 960 / n pixels (at least 4) up to 240 classes (100: 9-pixel
// cells), and beyond that blocks of classes_per_cell x classes_per_cell
// classes per cell (1,000 classes: blocks of 5, 200 cells of 4 pixels).
struct HeatmapLayout {
  int cell_pixels = 32;
  int64_t classes_per_cell = 1;
};
HeatmapLayout heatmap_layout(int64_t num_classes);

// confusion: num_classes x num_classes counts, row-major, row = true class.
// With classes_per_cell k > 1 each cell is a block of k x k classes (the
// last ones smaller), coloured by its share of its rows' images.
HeatmapPng confusion_heatmap_png(std::span<const int64_t> confusion, int64_t num_classes,
                                 int cell_pixels = 32, int64_t classes_per_cell = 1);

}  // namespace cifar
