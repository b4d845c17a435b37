// image_folder_read.cpp: an image folder split decoded once, then read from
// its cache (see image_folder.h and image_cache.h).
#include <fmt/format.h>
#include <fmt/ranges.h>
#include <spdlog/spdlog.h>

#include <chrono>
#include <cstring>
#include <stdexcept>

#include "cifar/core/errors.h"
#include "cifar/data/image_cache.h"
#include "cifar/data/image_folder.h"
#include "cifar/data/image_folder_detail.h"

namespace cifar {
namespace fs = std::filesystem;

namespace {

using Clock = std::chrono::steady_clock;

double seconds_since(Clock::time_point start) {
  return std::chrono::duration<double>(Clock::now() - start).count();
}

// "12.3 MB": a cache file's size on disk, for the log ("? MB" when unreadable).
std::string size_on_disk(const fs::path& path) {
  std::error_code ec;
  const auto bytes = fs::file_size(path, ec);
  return ec ? std::string("? MB") : fmt::format("{:.1f} MB", static_cast<double>(bytes) / 1e6);
}

using folder_detail::decode_listing;
using folder_detail::Decoded;
using folder_detail::prepare_kept;
using folder_detail::stored_side;

void warn_skipped(const std::vector<std::string>& skipped, const fs::path& root) {
  if (skipped.empty()) return;
  spdlog::warn("{}: skipped {} file(s) that are not readable images (--skip-bad-images): {}",
               root.string(), skipped.size(), folder_detail::named_unreadable(skipped));
}

void log_ignored(const ImageFolderListing& listing) {
  if (!listing.hidden_class_folders.empty()) {
    spdlog::warn(
        "{}: the hidden folder(s) {} are no class here, but torchvision's ImageFolder takes them "
        "as classes, so Python's class indices would differ from these; remove them before "
        "training in either",
        listing.root.string(), fmt::join(listing.hidden_class_folders, ", "));
  }
  if (listing.hidden_ignored == 0 && listing.other_ignored == 0) return;
  // Each kind with the first few of its names (relative to the split folder).
  const auto named = [](int64_t n, const std::vector<std::string>& names) {
    if (names.empty()) return std::string();
    return fmt::format(": {}{}", fmt::join(names, ", "),
                       n > static_cast<int64_t>(names.size()) ? ", ..." : "");
  };
  spdlog::info(
      "{}: ignored {} hidden entr{} (names starting with '.'{}) and {} other file(s) (only "
      ".png, .jpg and .jpeg files are read{})",
      listing.root.string(), listing.hidden_ignored, listing.hidden_ignored == 1 ? "y" : "ies",
      named(listing.hidden_ignored, listing.hidden_names), listing.other_ignored,
      named(listing.other_ignored, listing.other_names));
}

// The split; whole images (options.image.whole_size) with their sizes.
ImageSplit to_split(torch::Tensor images, torch::Tensor labels, const torch::Tensor& sizes,
                    const std::vector<std::string>& class_names,
                    const ImageFolderOptions& options) {
  ImageSplit data;
  data.images = std::move(images);
  data.labels = std::move(labels);
  data.class_names = class_names;
  if (const ImageSpec& image = options.image; image.whole_size > 0) {
    data.whole = WholeImages{.sizes = sizes,
                             .image_size = image.image_size,
                             .prep = image.prep,
                             .min_scale = image.min_scale};
  }
  return data;
}

// The cache's verdict, logged; true on a hit (then `contents` hold the split).
// `writable` false: the file there is not a cache, and is left as it is.
bool use_cache(const fs::path& path, const std::string& manifest, int64_t tier,
               const fs::path& root, ImageCacheContents& contents, Clock::time_point start,
               bool& writable) {
  auto lookup = load_image_cache(path, manifest, tier);
  writable = lookup.status != CacheStatus::kForeign;
  switch (lookup.status) {
    case CacheStatus::kForeign:
      spdlog::warn(
          "{}: {} is not an image cache ({}), so it is left as it is and the images are decoded "
          "on every read; move it away to let the cache be written there",
          root.string(), path.string(), lookup.detail);
      return false;
    case CacheStatus::kHit:
      spdlog::info(
          "{}: {} images read from the cache {} ({}; the photos kept at up to {} px a side, "
          "prepared from there: nothing decoded) in {:.2f} s",
          root.string(), lookup.contents.labels.size(0), path.string(), size_on_disk(path), tier,
          seconds_since(start));
      contents = std::move(lookup.contents);
      return true;
    case CacheStatus::kStale:
      spdlog::info("{}: the image cache {} is out of date ({}); decoding again", root.string(),
                   path.string(), lookup.detail);
      return false;
    case CacheStatus::kDamaged:
      spdlog::warn("{}: ignoring the damaged image cache {} ({}); decoding again and rewriting it",
                   root.string(), path.string(), lookup.detail);
      return false;
    case CacheStatus::kMissing:
      break;
  }
  return false;
}

// The images of `listing` at the indices `picked` (all when undefined),
// decoded and not cached: `why` says why in the log.
ImageSplit decode_uncached(const ImageFolderListing& listing, const torch::Tensor& picked,
                           const ImageFolderOptions& options, Clock::time_point start,
                           const char* why) {
  ImageFolderListing some;
  some.root = listing.root;
  some.class_names = listing.class_names;
  if (picked.defined()) {
    const auto* index = picked.data_ptr<int64_t>();
    for (int64_t i = 0; i < picked.numel(); ++i) {
      some.files.push_back(listing.files.at(static_cast<size_t>(index[i])));
    }
  } else {
    some.files = listing.files;
  }
  spdlog::info("{}: decoding {} of its {} images ({})", listing.root.string(), some.files.size(),
               listing.files.size(), why);
  const auto decoded = decode_listing(some, options);
  warn_skipped(decoded.skipped, listing.root);
  if (decoded.labels.size(0) == 0) {
    throw std::runtime_error(fmt::format("{}: none of its {} image files is a readable image",
                                         listing.root.string(), some.files.size()));
  }
  spdlog::info("{}: {} images decoded in {:.1f} s", listing.root.string(), decoded.labels.size(0),
               seconds_since(start));
  return to_split(prepare_kept(decoded.kept, options), decoded.labels, decoded.sizes,
                  listing.class_names, options);
}

// A listing's split through its cache at `cache`: read from it when it
// holds the listing at the options' tier, else decoded (and cached when
// every file is read).
ImageSplit read_cached(const ImageFolderListing& listing, const fs::path& cache,
                       const ImageFolderOptions& options, const std::string& where,
                       Clock::time_point start) {
  // The files asked for (options.pick); undefined: all of them.
  const auto listed = static_cast<int64_t>(listing.files.size());
  torch::Tensor picked = options.pick ? options.pick(listed) : torch::Tensor();
  if (picked.defined()) picked = picked.to(torch::kInt64).contiguous();
  const int64_t tier = kept_side_of(options.image);
  ImageCacheContents contents;
  contents.manifest = image_cache_manifest(listing, options, where);
  bool writable = true;
  if (options.use_cache &&
      use_cache(cache, contents.manifest, tier, listing.root, contents, start, writable)) {
    warn_skipped(contents.skipped, listing.root);
    if (picked.defined()) {  // those asked for
      TORCH_CHECK(contents.labels.size(0) == listed, "a pick from a cache with skipped files");
      std::vector<torch::Tensor> some;
      const auto* index = picked.data_ptr<int64_t>();
      for (int64_t i = 0; i < picked.numel(); ++i) {
        some.push_back(contents.kept.at(static_cast<size_t>(index[i])));
      }
      return to_split(prepare_kept(some, options), contents.labels.index_select(0, picked),
                      contents.sizes.index_select(0, picked), listing.class_names, options);
    }
    // Prepared into memory of its own: the cache file's mapped pages are let
    // go here, so a file overwritten in place by another program (cp, rsync
    // --inplace) can neither change the split nor end the run.
    return to_split(prepare_kept(contents.kept, options), contents.labels, contents.sizes,
                    listing.class_names, options);
  }
  // A pick (a limit, held-out images): only those; the cache waits for a read of them all.
  if (picked.defined()) {
    return decode_uncached(listing, picked, options, start,
                           "only those asked for: a read of them all writes the cache");
  }
  spdlog::info(
      "{}: decoding {} images (once: later reads, at any image size up to the {} px "
      "they are kept at, take them from {})",
      listing.root.string(), listing.files.size(), tier,
      !options.use_cache ? "nowhere, the cache is off"
      : writable         ? cache.string()
                         : "nowhere, the cache's path is taken");
  auto decoded = decode_listing(listing, options);
  warn_skipped(decoded.skipped, listing.root);
  if (decoded.labels.size(0) == 0) {
    throw std::runtime_error(fmt::format("{}: none of its {} image files is a readable image",
                                         listing.root.string(), listing.files.size()));
  }
  bool cached = false;
  if (options.use_cache && writable) {
    contents.kept = decoded.kept;
    contents.labels = decoded.labels;
    contents.sizes = decoded.sizes;
    contents.skipped = decoded.skipped;
    try {
      save_image_cache(cache, contents);
      cached = true;
    } catch (const std::exception& error) {
      spdlog::warn("could not write the image cache: {}; the next read decodes the images again",
                   first_line(error.what()));
    }
  }
  spdlog::info("{}: {} images decoded{} in {:.1f} s", listing.root.string(), decoded.labels.size(0),
               cached ? fmt::format(" and cached in {} ({})", cache.string(), size_on_disk(cache))
                      : std::string(),
               seconds_since(start));
  return to_split(prepare_kept(decoded.kept, options), decoded.labels, decoded.sizes,
                  listing.class_names, options);
}

}  // namespace

ImageSplit read_image_folder(const fs::path& dir, Split split, const ImageFolderOptions& options) {
  const auto start = Clock::now();
  const auto listing = list_image_folder(dir, split, options);
  if (listing.files.empty()) {  // no test/ folder, and the caller accepts that
    spdlog::info("{} has no test/ folder: the test split is empty", dir.string());
    const int64_t side = stored_side(options);
    return to_split(torch::empty({0, 3, side, side}, torch::kUInt8),
                    torch::empty({0}, torch::kInt64), torch::empty({0, 2}, torch::kInt64),
                    listing.class_names, options);
  }
  log_ignored(listing);
  const int64_t tier = kept_side_of(options.image);
  const CacheFile cache = split_cache_file(dir, split, options, tier);
  return read_cached(listing, cache.path, options, cache.where, start);
}

ImageSplit read_class_folder(const fs::path& root, const std::vector<std::string>& known,
                             const std::string& known_source, const ImageFolderOptions& options) {
  return read_class_folder_files(root, known, known_source, options).split;
}

ClassFolderImages read_class_folder_files(const fs::path& root,
                                          const std::vector<std::string>& known,
                                          const std::string& known_source,
                                          const ImageFolderOptions& options) {
  const auto start = Clock::now();
  const auto listing = list_class_folder(root, known, known_source);
  log_ignored(listing);
  ClassFolderImages out;
  const auto cache = class_folder_cache(root, options, kept_side_of(options.image));
  if (!cache) {
    out.split = decode_uncached(listing, torch::Tensor(), options, start,
                                "a folder of classes outside a data set: not cached, as a cache "
                                "inside it would be a hidden folder among its classes");
  } else {
    out.split = read_cached(listing, cache->path, options, cache->where, start);
  }
  // Every listed file is in the split unless skip_bad_images dropped some,
  // which leaves the files unmatched: then none is named.
  if (out.split.size() == static_cast<int64_t>(listing.files.size())) {
    for (const auto& f : listing.files) out.files.push_back(root / f.relative);
  }
  return out;
}

}  // namespace cifar
