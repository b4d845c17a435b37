// image_cache.h: the decoded images of an image folder split, kept in one
// file so that they are decoded once.
//
// It keeps each photo decoded and reduced to the tier of core/image_prep.h
// (kept_side: its shorter side at most 256 px for every side up to 224 at
// crop 0.875), not prepared: every image size and preparation of the same
// tier is made from it on each read, so a change of --image-size or
// --crop-mode decodes nothing again; each tier has a file of its own. The key is a manifest: a text
// naming the cache format, how images are decoded and reduced (and the LibTorch version doing it),
// the options that change the result, the class names, and every image file with its size,
// modification time (nanoseconds) and label. A cache is used only when its manifest equals the one
// made from the folder now; so a changed, added or removed image (or a renamed class) invalidates
// it, and the log says what changed. The file:
//
//   "CIFARIMGCACHE" 0 0 3   16 bytes: magic and format version 3
//   u64 manifest bytes, the manifest
//   u64 images N, u64 skipped files S, S times (u32 bytes, "name: reason")
//   N int64 labels, N x 2 int64 sizes (each image's height and width as
//   read), N x 2 int64 kept sizes (h, w of each copy kept), then the N
//   copies, each 3 x h x w bytes ((3, h, w) uint8)
//   u32 CRC-32 (zlib's) of everything before it
//
// in the machine's byte order (little-endian; the file is a cache, never
// exchanged). It is written atomically (core/file_io.h); a file that is
// truncated or whose checksum does not match is reported as damaged, one of
// another format version, or whose manifest differs (the whole file checked
// first: a changed byte there is damage), as out of date; the caller decodes
// again and replaces it. A file that is not an image cache at all (not a regular file, or not
// starting with "CIFARIMGCACHE") is foreign: the caller decodes and leaves
// it as it is (a cache file is rewritten only when it is the tool's own). A
// hit's copies are the file's pages mapped into memory (copied on write),
// read once to prepare the split. The file's size is about 3 x 256 x 341
// bytes a photo of 4:3 (260 KB; 800 MB for 3,000 photos), less for photos
// smaller than the tier, which are kept as decoded. CRC-32 rather than
// SHA-256 (checkpoints' checksum): the cache guards against accidents (a
// truncated copy, a bad disk block), not edits, and at 4 GB/s and more it
// costs a small part of a cached read of CIFAR-10's 50,000 images (0.2-0.3 s).
#pragma once

#include <cstdint>
#include <filesystem>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "cifar/data/image_folder.h"
#include "cifar/data/image_split.h"

namespace cifar {

// The cache file of a split at a tier (kept_side). cache_dir empty:
// DIR/.cifar-cache/<split>.bin, else cache_dir/image-folders/<16 hex digits
// of SHA-256(absolute DIR)>-<split>.bin; "<split>-512.bin" for a tier above
// kMinKeptSide, so that each tier a folder is read at is decoded once (the
// photo configs' 256 and 512 px, one run after the other, decode nothing again).
std::filesystem::path image_cache_path(const std::filesystem::path& dir, Split split,
                                       const std::filesystem::path& cache_dir,
                                       int64_t tier = kMinKeptSide);

// Where a split of DIR is cached, and the `where` its manifest records
// (image_cache_manifest): options.cache_dir when given; else beside the data
// (where ""), unless DIR (or its .cifar-cache) is not writable, when
// options.spare_cache_dir (a cache beside a read-only folder, stale after an
// upgrade, could never be written again).
struct CacheFile {
  std::filesystem::path path;
  std::string where;  // the absolute DIR when the cache lives apart from it, else ""
};
CacheFile split_cache_file(const std::filesystem::path& dir, Split split,
                           const ImageFolderOptions& options, int64_t tier);

// Every tier a cache file can be kept at: kMinKeptSide doubled up to the
// largest --image-size's whole images (data/resolution.h).
std::vector<int64_t> cache_tiers();

// The cache file of a plain folder of class folders ROOT, and the data set
// it belongs to, when ROOT is a data set's val/ (valid/, validation/) or
// test/ folder: the data set's split cache, so that cifar-eval on it reads
// what training cached (and the reverse). Else none: a cache of its own
// inside ROOT would be a hidden folder among its classes, which
// torchvision's ImageFolder takes for a class.
// The cache is the data set's split's (split_cache_file).
std::optional<CacheFile> class_folder_cache(const std::filesystem::path& root,
                                            const ImageFolderOptions& options,
                                            int64_t tier = kMinKeptSide);

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
  std::vector<torch::Tensor> kept;   // N of (3, h, w) uint8, contiguous: the copies kept
  torch::Tensor labels;              // (N) int64
  torch::Tensor sizes;               // (N, 2) int64: each image's (height, width) as read
};

enum class CacheStatus {
  kMissing,  // no cache file: a first read
  kStale,    // made from other files, settings or format; `detail` says what changed
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
// the tier: no copy kept may have its shorter side above `kept_side`).
CacheLookup load_image_cache(const std::filesystem::path& path, const std::string& manifest,
                             int64_t kept_side);

// Writes it atomically, creating the folder. Throws std::runtime_error
// naming the path on failure.
void save_image_cache(const std::filesystem::path& path, const ImageCacheContents& contents);

}  // namespace cifar
