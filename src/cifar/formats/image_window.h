// image_window.h: a window of a resized image, computed without the rest.
//
// torchvision's Resize(antialias=True) of an image of extreme aspect ratio
// can be far larger than both the image and the crop kept from it: the
// shorter side of a 1 x 200,000 PNG resized to 36 px makes the longer one
// 7,200,000 px, a 36 x 7,200,000 float image (3 GB) to cut a 32 x 32 centre
// from. resized_window computes the same separable filter (bilinear with
// antialiasing: PIL's and ATen's triangle filter, widened by the scale when
// downsampling, its weights normalised) for the window's output pixels
// only, one axis after the other, the axis that leaves the smaller
// intermediate first; its working memory is the window and one axis's
// intermediate of at most min(rows, columns read) x the window's side, whatever
// the image's shape. Its values agree with F.interpolate's to float rounding
// (within one level once rounded to uint8); prepare_image takes it only
// where the whole resize would be much larger than the image and its output
// (image_prepare.cpp), so ordinary images are resized exactly as before.
#pragma once

#include <torch/torch.h>

#include <cstdint>

namespace cifar {

// Where a window lies in the resized image: the resized size, the window's
// top-left corner and its size.
struct ResizeWindow {
  int64_t height = 0, width = 0;  // the whole resized image
  int64_t top = 0, left = 0;
  int64_t rows = 0, cols = 0;  // the window
};

// rgb (3, H, W) uint8 -> (3, rows, cols) float holding values 0..255: the
// window of rgb resized to height x width (bilinear, antialiased).
torch::Tensor resized_window(const torch::Tensor& rgb, const ResizeWindow& window);

// The floats F.interpolate's whole resize of an H x W image to height x
// width holds (its intermediate and its result, per channel), and whether
// that stays within a few times the image and the resized square:
// 4 H W + 8 min(height, width)^2, which every image of aspect ratio up to
// 4:1 meets.
int64_t whole_resize_floats(int64_t h, int64_t w, int64_t height, int64_t width);
bool whole_resize_bounded(int64_t h, int64_t w, int64_t height, int64_t width);

}  // namespace cifar
