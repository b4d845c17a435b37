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

// confusion: num_classes x num_classes counts, row-major, row = true class.
HeatmapPng confusion_heatmap_png(std::span<const int64_t> confusion, int64_t num_classes,
                                 int cell_pixels = 32);

}  // namespace cifar
