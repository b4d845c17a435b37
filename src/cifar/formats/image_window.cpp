// image_window.cpp: a window of a resized image, computed alone (image_window.h).
#include "cifar/formats/image_window.h"

#include <algorithm>
#include <cmath>
#include <utility>
#include <vector>

namespace cifar {

namespace {

// The input samples output sample `o` of a resize from `in` to `out`
// samples reads, from `first` on, and their weights: ATen's antialiased
// bilinear filter (_upsample_bilinear2d_aa, after PIL's): a triangle of
// half-width max(1, in / out) input samples around the output's centre,
// the weights normalised to sum to 1.
struct Taps {
  int64_t first = 0;
  std::vector<float> weights;
};

Taps taps_for(int64_t in, int64_t out, int64_t o) {
  const double scale = static_cast<double>(in) / static_cast<double>(out);
  const double support = scale >= 1.0 ? scale : 1.0;
  const double inverse = scale >= 1.0 ? 1.0 / scale : 1.0;
  const double center = scale * (static_cast<double>(o) + 0.5);
  Taps taps;
  taps.first = std::max<int64_t>(static_cast<int64_t>(center - support + 0.5), 0);
  const int64_t end = std::min<int64_t>(static_cast<int64_t>(center + support + 0.5), in);
  std::vector<double> w;
  double total = 0;
  for (int64_t j = taps.first; j < end; ++j) {
    const double x = std::abs((static_cast<double>(j) - center + 0.5) * inverse);
    w.push_back(x < 1.0 ? 1.0 - x : 0.0);
    total += w.back();
  }
  for (const double v : w) taps.weights.push_back(static_cast<float>(total > 0 ? v / total : v));
  return taps;
}

// [first, end) of the input samples that output samples [begin, begin +
// count) read; the output samples themselves when the axis keeps its size.
std::pair<int64_t, int64_t> samples_read(int64_t in, int64_t out, int64_t begin, int64_t count) {
  if (in == out) return {begin, begin + count};
  const Taps a = taps_for(in, out, begin), b = taps_for(in, out, begin + count - 1);
  const int64_t end = b.first + static_cast<int64_t>(b.weights.size());
  return {std::min(a.first, end - 1), std::max(end, a.first + 1)};
}

// x (C, R, K) of any strides, the samples [offset, offset + K) of an axis
// of `in` samples, last -> (C, R, count) float: output samples [begin,
// begin + count) of that axis resized to `out`, summed in ATen's order.
template <typename T>
torch::Tensor resample(const torch::Tensor& x, int64_t offset, int64_t in, int64_t out,
                       int64_t begin, int64_t count) {
  const auto src = x.accessor<T, 3>();
  auto y = torch::empty({x.size(0), x.size(1), count}, torch::kFloat);
  auto dst = y.accessor<float, 3>();
  for (int64_t o = 0; o < count; ++o) {
    const Taps taps = taps_for(in, out, begin + o);
    const int64_t first = taps.first - offset;
    const auto n = static_cast<int64_t>(taps.weights.size());
    for (int64_t c = 0; c < x.size(0); ++c) {
      for (int64_t r = 0; r < x.size(1); ++r) {
        const auto line = src[c][r];
        float sum = 0;
        for (int64_t j = 0; j < n; ++j) {
          sum += static_cast<float>(line[first + j]) * taps.weights[static_cast<size_t>(j)];
        }
        dst[c][r][o] = sum;
      }
    }
  }
  return y;
}

// One axis (the last of x) resized, as above; kept as it is (as float)
// when it keeps its size.
torch::Tensor resize_last(const torch::Tensor& x, int64_t offset, int64_t in, int64_t out,
                          int64_t begin, int64_t count) {
  if (in == out) return x.narrow(2, begin - offset, count).to(torch::kFloat);
  if (x.scalar_type() == torch::kUInt8) return resample<uint8_t>(x, offset, in, out, begin, count);
  return resample<float>(x.to(torch::kFloat), offset, in, out, begin, count);
}

}  // namespace

torch::Tensor resized_window(const torch::Tensor& rgb, const ResizeWindow& win) {
  TORCH_CHECK(rgb.dim() == 3 && rgb.size(1) > 0 && rgb.size(2) > 0,
              "resized_window needs (C, H, W), got ", rgb.sizes());
  TORCH_CHECK(win.rows > 0 && win.cols > 0 && win.top >= 0 && win.left >= 0 &&
                  win.top + win.rows <= win.height && win.left + win.cols <= win.width,
              "resized_window: the window ", win.rows, "x", win.cols, " at ", win.top, ",",
              win.left, " is not inside ", win.height, "x", win.width);
  const int64_t h = rgb.size(1), w = rgb.size(2);
  const auto [r0, r1] = samples_read(h, win.height, win.top, win.rows);
  const auto [c0, c1] = samples_read(w, win.width, win.left, win.cols);
  const auto x = rgb.narrow(1, r0, r1 - r0).narrow(2, c0, c1 - c0);
  const auto across =
      [&](const torch::Tensor& t) {  // columns: (C, rows, cols) -> (C, rows, win.cols)
        return resize_last(t, c0, w, win.width, win.left, win.cols);
      };
  const auto down = [&](const torch::Tensor& t) {  // rows, through the transpose
    return resize_last(t.transpose(1, 2), r0, h, win.height, win.top, win.rows).transpose(1, 2);
  };
  // Columns first (ATen's order) unless rows first leaves the smaller intermediate.
  const bool columns_first = (r1 - r0) * win.cols <= win.rows * (c1 - c0);
  return (columns_first ? down(across(x)) : across(down(x))).contiguous();
}

int64_t whole_resize_floats(int64_t h, int64_t w, int64_t height, int64_t width) {
  return (w != width ? h * width : 0) + height * width;
}

bool whole_resize_bounded(int64_t h, int64_t w, int64_t height, int64_t width) {
  const int64_t square = std::min(height, width);
  return whole_resize_floats(h, w, height, width) <= 4 * h * w + 8 * square * square;
}

}  // namespace cifar
