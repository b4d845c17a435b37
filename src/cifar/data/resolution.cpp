// resolution.cpp: parsing the resolution schedule, and resizing a batch.
#include "cifar/data/resolution.h"

#include <fmt/format.h>

#include <algorithm>
#include <charconv>
#include <optional>
#include <string_view>

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

}  // namespace

ScheduleText parse_resolution_schedule(const std::string& text) {
  ScheduleText out;
  if (text.empty()) return out;
  std::string_view rest(text);
  while (true) {
    const auto comma = rest.find(',');
    const std::string_view item = rest.substr(0, comma);
    out.item = item;
    const auto x = item.find('x');
    const auto size = whole_number(item.substr(0, x), kMinResolution, kMaxResolution);
    if (!size) {
      out.why = fmt::format("is not a size from {} to {} px", kMinResolution, kMaxResolution);
      return out;
    }
    int64_t repeat = 1;
    if (x != std::string_view::npos) {
      const auto n = whole_number(item.substr(x + 1), 1, kMaxScheduleEpochs);
      if (!n) {
        out.why = fmt::format("has a repeat not from 1 to {}", kMaxScheduleEpochs);
        return out;
      }
      repeat = *n;
    }
    if (static_cast<int64_t>(out.sizes.size()) + repeat > kMaxScheduleEpochs) {
      out.why = fmt::format("takes the schedule past {} epochs", kMaxScheduleEpochs);
      return out;
    }
    out.sizes.insert(out.sizes.end(), static_cast<size_t>(repeat), *size);
    if (comma == std::string_view::npos) break;
    rest.remove_prefix(comma + 1);
  }
  out.item.clear();
  return out;
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

}  // namespace cifar
