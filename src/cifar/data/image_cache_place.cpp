// image_cache_place.cpp: where an image folder's decode caches live (see
// image_cache.h): beside the data, in --cache-dir, or in the spare folder
// when the data's folder is read-only; one file per split and tier.
#include <fmt/format.h>
#include <unistd.h>  // access

#include "cifar/core/file_io.h"
#include "cifar/data/crops.h"  // kWholeScale
#include "cifar/data/image_cache.h"
#include "cifar/data/resolution.h"   // kMaxResolution
#include "cifar/formats/checksum.h"  // sha256 of the folder name

namespace cifar {
namespace fs = std::filesystem;

fs::path image_cache_path(const fs::path& dir, Split split, const fs::path& cache_dir,
                          int64_t tier) {
  const std::string file = fmt::format("{}{}.bin", split_folder_name(split),
                                       tier > kMinKeptSide ? fmt::format("-{}", tier) : "");
  if (cache_dir.empty()) return dir / ".cifar-cache" / file;
  const std::string where = absolute_path(dir).string();
  const auto digest =
      sha256(std::span(reinterpret_cast<const uint8_t*>(where.data()), where.size()));
  return cache_dir / "image-folders" / (to_hex(digest).substr(0, 16) + "-" + file);
}

CacheFile split_cache_file(const fs::path& dir, Split split, const ImageFolderOptions& options,
                           int64_t tier) {
  fs::path folder = options.cache_dir;
  if (folder.empty() && !options.spare_cache_dir.empty()) {
    std::error_code ec;
    const fs::path beside = dir / ".cifar-cache";
    const fs::path written = fs::is_directory(beside, ec) ? beside : dir;
    if (::access(written.c_str(), W_OK | X_OK) != 0) folder = options.spare_cache_dir;
  }
  return {image_cache_path(dir, split, folder, tier),
          folder.empty() ? "" : absolute_path(dir).string()};
}

std::vector<int64_t> cache_tiers() {
  const ImagePrep widest{CropMode::kCenter, kMinCropPct};
  const int64_t largest = kept_side(kMaxResolution, widest, kWholeScale * kMaxResolution);
  std::vector<int64_t> tiers;
  for (int64_t tier = kMinKeptSide; tier <= largest; tier *= 2) tiers.push_back(tier);
  return tiers;
}

std::optional<CacheFile> class_folder_cache(const fs::path& root, const ImageFolderOptions& options,
                                            int64_t tier) {
  fs::path folder = absolute_path(root);
  if (!folder.has_filename()) folder = folder.parent_path();  // "val/"
  const fs::path dir = folder.parent_path();
  std::error_code ec;
  if (has_image_folder_layout(dir)) {
    for (const Split split : {Split::kVal, Split::kTest}) {
      try {
        if (fs::equivalent(root, split_folder(dir, split), ec)) {
          return split_cache_file(dir, split, options, tier);
        }
      } catch (const std::runtime_error&) {  // two validation folders: none is the split
      }
    }
  }
  return std::nullopt;
}

}  // namespace cifar
