// crops.h: torchvision's RandomResizedCrop and the centre crop of an
// evaluation, cut from whole images kept at a larger size.
//
// An image folder trained with augmentation keeps each training image whole,
// squashed to kWholeScale times the model's side (image_split.h's
// WholeImages), with its size as read. Each epoch draws, per image, a box as
// torchvision's RandomResizedCrop.get_params draws it in the image as read
// (a share of the area in [min_scale, 1], an aspect ratio in [3/4, 4/3] drawn
// on a log scale, ten tries, then the centre crop of the clamped ratio); the
// box, as fractions of the image's height and width, is the same region of
// the squashed copy. A batch is then cut and resized to side x side in one
// bilinear grid_sample on its device (with the flip folded in), so the crop
// costs no host work per step. An unaugmented view of such images (a
// --val-split held out of them, airbench's whitening patches) uses the box of
// the evaluation's preparation (core/image_prep.h): the same region that
// prepare_image keeps, resampled from the squashed copy.
#pragma once

#include <torch/torch.h>

#include <cstdint>

#include "cifar/core/image_prep.h"
#include "cifar/data/image_split.h"

namespace cifar {

// Whole images are kept at this many times the model's side: a crop of a
// quarter of the image's area or more is then never upsampled.
inline constexpr int64_t kWholeScale = 2;
// torchvision's RandomResizedCrop defaults: scale (0.08, 1), ratio (3/4, 4/3).
inline constexpr double kDefaultMinScale = 0.08;

// sizes (N, 2) int64 (height, width) -> boxes (N, 4) float (top, left,
// height, width) as fractions of each image's height and width, drawn from
// `gen` as torchvision's RandomResizedCrop draws them.
torch::Tensor random_crop_boxes(const torch::Tensor& sizes, double min_scale, at::Generator& gen);

// The same boxes for prepare_image(image, side, prep): the region of each
// image (N, 2 sizes) that its evaluation keeps.
torch::Tensor eval_crop_boxes(const torch::Tensor& sizes, int64_t side, const ImagePrep& prep);

// x (B, C, S, S) any dtype, boxes (B, 4) float (as above), flips (B) bool or
// undefined -> (B, C, side, side) float: each box resized to side x side
// (bilinear), mirrored left-right where flips is true. One grid_sample.
torch::Tensor crop_resize(const torch::Tensor& x, const torch::Tensor& boxes,
                          const torch::Tensor& flips, int64_t side);

// A split of whole images as the evaluation sees them: (N, 3, side, side)
// uint8 (rounded), `whole` unset. Other splits are returned as they are.
ImageSplit evaluation_view(const ImageSplit& split);

}  // namespace cifar
