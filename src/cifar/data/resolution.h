// resolution.h: the resolution schedule, training at fewer pixels first.
//
// A resolution schedule lists, epoch by epoch from the first, the size (px)
// the training images are resized to before the step; epochs past its end
// train at the images' own size. As fulcrumresearch/cifar-10-speedrun's
// curriculum: each batch is augmented at full size (a 32 px crop), then
// bilinearly downsampled as a whole, so the network sees the whole scene at
// less detail; a 24 px step costs (24/32)^2 = 0.56 of a 32 px one in the
// convolutions. Evaluation is always at the images' own size, so the last
// epochs should be at full size (BatchNorm statistics adapt to it).
//
// Written as a comma list of sizes, each optionally repeated with "xN":
// "24x3,28x3" is "24,24,24,28,28,28": epochs 1-3 at 24 px, 4-6 at 28 px.
#pragma once

#include <torch/torch.h>

#include <cstdint>
#include <string>
#include <vector>

namespace cifar {

inline constexpr int64_t kMinResolution = 16;
inline constexpr int64_t kMinImageSize = 8;  // --image-size (its most: kMaxResolution)
inline constexpr int64_t kMaxResolution = 1024;
inline constexpr int64_t kMaxScheduleEpochs = 100'000;

// A schedule's text as read: its sizes, or the item that is wrong and why
// ("is not a size from 16 to 1024 px"), with which config/ refuses
// --resolution-schedule.
struct ScheduleText {
  std::vector<int64_t> sizes;
  std::string item;  // the comma-separated item that is wrong
  std::string why;   // "" when the whole text reads

  bool ok() const { return why.empty(); }
};

// "24x3,28x3" -> {24, 24, 24, 28, 28, 28}; "" -> {}. Not ok when a size is
// not a whole number in [kMinResolution, kMaxResolution], a repeat is not in
// [1, kMaxScheduleEpochs], or the schedule runs past kMaxScheduleEpochs.
ScheduleText parse_resolution_schedule(const std::string& text);

// The shortest text that parses back to `sizes`: runs written "SIZExN".
std::string resolution_schedule_text(const std::vector<int64_t>& sizes);

// `schedule` written for images of `from` px, for images of `to` px: each
// size scaled by to / from, rounded (at least 1): --resolution-schedule is
// written for the data sets' own 32 px, and follows --image-size.
std::vector<int64_t> scaled_schedule(const std::vector<int64_t>& schedule, int64_t from,
                                     int64_t to);

// The size epoch `epoch` (1-based) trains at; 0: the images' own size.
int64_t training_resolution(const std::vector<int64_t>& schedule, int64_t epoch);

// images (B, C, H, W) float -> (B, C, size, size), bilinear (align_corners
// false, no antialiasing: F.interpolate's default), in the input's memory
// format. The input itself when it already has that size.
torch::Tensor resize_images(const torch::Tensor& images, int64_t size);

}  // namespace cifar
