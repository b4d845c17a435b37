// image_folder_decode.cpp: the files of an image folder listing decoded
// and prepared (or kept whole) across LibTorch's threads (image_folder_detail.h).
#include <ATen/Parallel.h>
#include <fmt/format.h>

#include <algorithm>
#include <cstring>
#include <filesystem>
#include <stdexcept>
#include <string>
#include <vector>

#include "cifar/core/file_io.h"
#include "cifar/core/names.h"

#include "cifar/core/errors.h"
#include "cifar/data/image_folder_detail.h"
#include "cifar/platform/interrupt.h"

namespace cifar::folder_detail {
namespace fs = std::filesystem;

namespace {
constexpr int64_t kChunk = 256;  // images decoded between progress calls

// One kept copy as the split holds it: prepared, or whole.
torch::Tensor stored_image(const torch::Tensor& rgb, const ImageFolderOptions& options) {
  const ImageSpec& image = options.image;
  if (image.whole_size > 0) return resize_image(rgb, image.whole_size);
  return prepare_image(rgb, image.image_size, image.prep);
}

// The split's files that are not readable images, all at once (the first
// five named), so that one run names every file to fix.
void refuse_unreadable(const std::vector<std::string>& errors, const fs::path& root) {
  std::vector<std::string> bad;
  for (const auto& error : errors) {
    if (!error.empty()) bad.push_back(without_final_period(error));
  }
  if (bad.empty()) return;
  constexpr const char* kHint =
      "or pass --skip-bad-images to leave out (and name) the files that are not readable images";
  if (bad.size() == 1) {
    throw UnreadableImage(fmt::format("{}: remove or replace the file, {}", bad[0], kHint));
  }
  throw UnreadableImage(
      fmt::format("{} holds {} files that are not readable images: {}; remove or replace them, {}",
                  root.string(), bad.size(), named_unreadable(bad), kHint));
}

}  // namespace

std::string named_unreadable(const std::vector<std::string>& errors) {
  return first_names(errors, 5, "; ");
}

int64_t stored_side(const ImageFolderOptions& options) {
  return options.image.whole_size > 0 ? options.image.whole_size : options.image.image_size;
}

Decoded decode_listing(const ImageFolderListing& listing, const ImageFolderOptions& options) {
  const auto n = static_cast<int64_t>(listing.files.size());
  const int64_t tier = kept_side_of(options.image);
  std::vector<torch::Tensor> kept(static_cast<size_t>(n));
  auto sizes = torch::zeros({n, 2}, torch::kInt64);
  auto* size_of = sizes.data_ptr<int64_t>();
  std::vector<std::string> errors(static_cast<size_t>(n));
  const InterruptGuard interrupt_guard(
      "interrupt: stopping the decoding after these images (interrupt again to quit now)");
  for (int64_t begin = 0; begin < n; begin += kChunk) {
    const int64_t end = std::min(n, begin + kChunk);
    at::parallel_for(begin, end, 1, [&](int64_t b, int64_t e) {
      for (int64_t i = b; i < e; ++i) {
        try {
          const auto& file = listing.files[static_cast<size_t>(i)];
          const auto decoded = read_image(file.path, options.max_pixels);  // (3, H, W)
          size_of[2 * i] = decoded.size(1);
          size_of[2 * i + 1] = decoded.size(2);
          kept[static_cast<size_t>(i)] = reduce_image(decoded, tier).contiguous();  // (3, h, w)
        } catch (const std::exception& error) {
          errors[static_cast<size_t>(i)] = first_line(error.what());
          if (errors[static_cast<size_t>(i)].empty()) errors[static_cast<size_t>(i)] = "unreadable";
        }
      }
    });
    if (options.progress) options.progress(end, n);
    // Also after the last chunk: a request left pending would be cleared by
    // the next guard (the training's), and the run would go on.
    if (stop_requested()) {
      throw Interrupted(fmt::format(
          "interrupted (signal {}) while decoding {}: {} of its {} images done; this split was "
          "not cached, and the same command starts its decoding again",
          stop_signal(), shown_name(listing.root), end, n));
    }
  }
  if (!options.skip_bad_images) refuse_unreadable(errors, listing.root);
  std::vector<int64_t> keep, labels;
  Decoded d;
  for (int64_t i = 0; i < n; ++i) {
    const auto& error = errors[static_cast<size_t>(i)];
    if (error.empty()) {
      keep.push_back(i);
      labels.push_back(listing.files[static_cast<size_t>(i)].label);
    } else {
      d.skipped.push_back(error);
    }
  }
  d.labels = torch::tensor(labels, torch::kInt64);
  for (const int64_t i : keep) d.kept.push_back(std::move(kept[static_cast<size_t>(i)]));
  d.sizes = d.skipped.empty() ? sizes : sizes.index_select(0, torch::tensor(keep));
  return d;
}

torch::Tensor prepare_kept(const std::vector<torch::Tensor>& kept,
                           const ImageFolderOptions& options) {
  const auto n = static_cast<int64_t>(kept.size());
  const ImageShape shape{.channels = 3, .image_size = stored_side(options)};
  const int64_t bytes = shape.bytes();
  check_prepared_fit(n, shape);
  auto images =
      torch::empty({n, shape.channels, shape.image_size, shape.image_size}, torch::kUInt8);
  auto* out = images.data_ptr<uint8_t>();
  at::parallel_for(0, n, 1, [&](int64_t b, int64_t e) {
    for (int64_t i = b; i < e; ++i) {
      // Copied as bytes: (3, side, side) contiguous, whatever layout the resize gave.
      const auto rgb = stored_image(kept[static_cast<size_t>(i)], options).contiguous();
      TORCH_CHECK(rgb.numel() == bytes, "preparing an image gave ", rgb.sizes());
      std::memcpy(out + i * bytes, rgb.data_ptr<uint8_t>(), static_cast<size_t>(bytes));
    }
  });
  return images;
}

}  // namespace cifar::folder_detail

namespace cifar {

int64_t median_shorter_side(const ImageFolderListing& listing) {
  const auto n = static_cast<int64_t>(listing.files.size());
  std::vector<int64_t> sides(static_cast<size_t>(n), 0);
  at::parallel_for(0, n, 1, [&](int64_t b, int64_t e) {
    for (int64_t i = b; i < e; ++i) {
      // The first 64 KB hold the header of almost every photo; a camera's
      // Exif thumbnails (APP segments of up to 64 KB each) can push a JPEG's
      // frame header further, so 1 MiB is read where 64 KB did not do.
      for (const uint64_t bytes : {uint64_t{64} << 10, uint64_t{1} << 20}) {
        try {
          const std::string front =
              read_front(listing.files[static_cast<size_t>(i)].path, bytes, "image");
          const auto size = image_dimensions(
              std::span(reinterpret_cast<const uint8_t*>(front.data()), front.size()));
          if (size) {
            sides[static_cast<size_t>(i)] = std::min(size->first, size->second);
            break;
          }
          if (front.size() < bytes) break;  // the whole file read: no header in it
        } catch (const std::exception&) {   // unreadable: left to decoding to name
          break;
        }
      }
    }
  });
  std::erase(sides, 0);
  if (sides.empty()) return 0;
  const auto middle = sides.begin() + static_cast<std::ptrdiff_t>(sides.size() / 2);
  std::nth_element(sides.begin(), middle, sides.end());
  return *middle;
}

}  // namespace cifar
