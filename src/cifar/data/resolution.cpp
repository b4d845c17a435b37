// resolution.cpp: parsing the resolution schedule, and resizing a batch.
#include "cifar/data/resolution.h"

#include <fmt/format.h>

#include <algorithm>
#include <charconv>
#include <optional>
#include <string_view>

#include "cifar/core/errors.h"
#include "cifar/core/image_prep.h"

namespace cifar {
namespace {

// A whole number in base 10, all of `text`, in [lo, hi]; else nullopt.
std::optional<int64_t> whole_number(std::string_view text, int64_t lo, int64_t hi) {
  int64_t value = 0;
  const auto [end, error] = std::from_chars(text.data(), text.data() + text.size(), value);
  if (error != std::errc() || end != text.data() + text.size() || value < lo || value > hi) {
    return std::nullopt;
  }
  return value;
}

[[noreturn]] void refuse(const std::string& text, std::string_view item, const std::string& why) {
  throw UsageError(fmt::format(
      "--resolution-schedule '{}': '{}' {}; write sizes in px, each optionally repeated, "
      "e.g. 24x3,28x3 (epochs 1-3 at 24 px, 4-6 at 28 px, the rest at full size)",
      text, item, why));
}

}  // namespace

std::vector<int64_t> parse_resolution_schedule(const std::string& text) {
  std::vector<int64_t> sizes;
  if (text.empty()) return sizes;
  std::string_view rest(text);
  while (true) {
    const auto comma = rest.find(',');
    const std::string_view item = rest.substr(0, comma);
    const auto x = item.find('x');
    const auto size = whole_number(item.substr(0, x), kMinResolution, kMaxResolution);
    if (!size) {
      refuse(text, item,
             fmt::format("is not a size from {} to {} px", kMinResolution, kMaxResolution));
    }
    int64_t repeat = 1;
    if (x != std::string_view::npos) {
      const auto n = whole_number(item.substr(x + 1), 1, kMaxScheduleEpochs);
      if (!n) refuse(text, item, fmt::format("has a repeat not from 1 to {}", kMaxScheduleEpochs));
      repeat = *n;
    }
    if (static_cast<int64_t>(sizes.size()) + repeat > kMaxScheduleEpochs) {
      refuse(text, item, fmt::format("takes the schedule past {} epochs", kMaxScheduleEpochs));
    }
    sizes.insert(sizes.end(), static_cast<size_t>(repeat), *size);
    if (comma == std::string_view::npos) break;
    rest.remove_prefix(comma + 1);
  }
  return sizes;
}

std::string resolution_schedule_text(const std::vector<int64_t>& sizes) {
  std::string out;
  for (size_t i = 0; i < sizes.size();) {
    size_t j = i;
    while (j < sizes.size() && sizes[j] == sizes[i]) ++j;
    if (!out.empty()) out += ',';
    out += j - i == 1 ? fmt::format("{}", sizes[i]) : fmt::format("{}x{}", sizes[i], j - i);
    i = j;
  }
  return out;
}

std::vector<int64_t> scaled_schedule(const std::vector<int64_t>& schedule, int64_t from,
                                     int64_t to) {
  std::vector<int64_t> out;
  out.reserve(schedule.size());
  for (const int64_t size : schedule) {
    out.push_back(std::max<int64_t>(1, (size * to + from / 2) / from));
  }
  return out;
}

int64_t training_resolution(const std::vector<int64_t>& schedule, int64_t epoch) {
  if (epoch < 1 || epoch > static_cast<int64_t>(schedule.size())) return 0;
  return schedule[static_cast<size_t>(epoch - 1)];
}

torch::Tensor resize_images(const torch::Tensor& images, int64_t size) {
  TORCH_CHECK(images.dim() == 4, "resize_images needs (B, C, H, W) images, got ", images.sizes());
  TORCH_CHECK(size > 0, "resize_images needs a positive size, got ", size);
  if (images.size(2) == size && images.size(3) == size) return images;
  namespace F = torch::nn::functional;
  const auto format = images.suggest_memory_format();
  return F::interpolate(images, F::InterpolateFuncOptions()
                                    .size(std::vector<int64_t>{size, size})
                                    .mode(torch::kBilinear)
                                    .align_corners(false))
      .contiguous(format);
}

void check_image_options(int64_t image_size, double crop_pct, const char* unset_size,
                         const char* unset_pct) {
  if (image_size > 0 && image_size < kMinImageSize) {
    throw UsageError(fmt::format("--image-size must be 0 ({}) or from {} to {} px, got {}",
                                 unset_size, kMinImageSize, kMaxResolution, image_size));
  }
  if (crop_pct > 0 && crop_pct < kMinCropPct) {
    throw UsageError(fmt::format(
        "--crop-pct must be 0 ({}) or from {:g} to 1 (the share of the resized image's side the "
        "centre crop keeps; 0.875 is torchvision's), got {:g}",
        unset_pct, kMinCropPct, crop_pct));
  }
}

}  // namespace cifar
