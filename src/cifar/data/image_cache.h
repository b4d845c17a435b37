// image_cache.h: the decoded images of an image folder split, kept in one
// file so that they are decoded once.
//
// The key is a manifest: a text naming the cache format, how images are
// decoded and prepared (core/image_prep.h, or kept whole for random resized
// crops; and the LibTorch version doing it), the options that
// change the result, the class names, and every image file with its size,
// modification time (nanoseconds) and label. A cache is used only when its
// manifest equals the one made from the folder now; so a changed, added or
// removed image (or a renamed class) invalidates it, and the log says what
// changed. The file:
//
//   "CIFARIMGCACHE" 0 0 2   16 bytes: magic and format version 2
//   u64 manifest bytes, the manifest
//   u64 images N, u64 skipped files S, S times (u32 bytes, "name: reason")
//   N int64 labels, N x 2 int64 sizes (each image's height and width as
//   read), N images of C x S x S bytes ((C, S, S) uint8 each, the
//   manifest's image size: the model's side, or a whole image's stored side)
//   u32 CRC-32 (zlib's) of everything before it
//
// in the machine's byte order (little-endian; the file is a cache, never
// exchanged). It is written atomically (core/file_io.h); a file that is
// truncated, of another format version, or whose checksum does not match
// is reported as damaged, and the caller decodes again and replaces it. A
// file that is not an image cache at all (not a regular file, or not
// starting with "CIFARIMGCACHE") is foreign: the caller decodes and leaves
// it as it is (a cache file is rewritten only when it is the tool's own). A
// hit's images are the file's pages mapped into memory (copied on write),
// not a copy (the reader copies the test split, which a run keeps). CRC-32 rather than
// SHA-256 (checkpoints' checksum): the cache guards against accidents (a
// truncated copy, a bad disk block), not edits, and at 4 GB/s and more it
// costs a small part of a cached read of CIFAR-10's 50,000 images (0.2-0.3 s).
#pragma once

#include <cstdint>
#include <filesystem>
#include <string>
#include <vector>

#include "cifar/data/image_folder.h"
#include "cifar/data/image_split.h"

namespace cifar {

// The cache file of a split. cache_dir empty: DIR/.cifar-cache/<split>.bin;
// else cache_dir/image-folders/<16 hex digits of SHA-256(absolute DIR)>-<split>.bin.
std::filesystem::path image_cache_path(const std::filesystem::path& dir, Split split,
                                       const std::filesystem::path& cache_dir);

// The key text for a listing read with these options. `where` is the
// absolute DIR when the cache lives apart from the data (two folders never
// share a cache), empty when it lives beside the data (moving the folder
// keeps it valid).
std::string image_cache_manifest(const ImageFolderListing& listing,
                                 const ImageFolderOptions& options, const std::string& where);

// What changed between the manifest a cache was made from and today's:
// "made with other settings or classes (...)" or "N image(s) added, ...".
std::string describe_cache_change(const std::string& before, const std::string& now);

struct ImageCacheContents {
  std::string manifest;
  std::vector<std::string> skipped;  // "relative/name.png: reason"
  torch::Tensor images;              // (N, C, S, S) uint8
  torch::Tensor labels;              // (N) int64
  torch::Tensor sizes;               // (N, 2) int64: each image's (height, width) as read
};

enum class CacheStatus {
  kMissing,  // no cache file: a first read
  kStale,    // made from other files or settings; `detail` says what changed
  kDamaged,  // a cache, but unreadable, truncated or failing its checksum; `detail` says how
  kForeign,  // not an image cache (no regular file, or not its magic): never replaced
  kHit,      // `contents` hold the split
};

struct CacheLookup {
  CacheStatus status = CacheStatus::kMissing;
  std::string detail;
  ImageCacheContents contents;
};

// Reads the cache at `path` if its manifest equals `manifest` (which names
// the image size), its images of shape `shape`.
CacheLookup load_image_cache(const std::filesystem::path& path, const std::string& manifest,
                             const ImageShape& shape);

// Writes it atomically, creating the folder. Throws std::runtime_error
// naming the path on failure.
void save_image_cache(const std::filesystem::path& path, const ImageCacheContents& contents);

}  // namespace cifar
