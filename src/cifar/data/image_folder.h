// image_folder.h: one's own images, laid out as torchvision's ImageFolder
// reads them, as a split of the same shape as CIFAR-10's.
//
//   DIR/train/<class>/**/*.png|jpg|jpeg    (required)
//   DIR/val/<class>/**/*.png|jpg|jpeg      (optional: the validation split)
//   DIR/test/<class>/**/*.png|jpg|jpeg     (optional: without it, val/ serves
//                                           as the test split too, or
//                                           --val-split holds out training
//                                           images instead)
//
// Class indices are the class folder names of train/ sorted by byte order,
// as torchvision sorts them, so Python users get the same indices; val/ and
// test/ use train/'s indices and may not hold a class train/ lacks. A plain
// folder of class folders (DIR/<class>/..., what cifar-eval takes besides a
// data set) uses the indices of the classes it is checked against. Images are
// listed as torchvision lists them (each class's folder walked recursively,
// folders in sorted order, files sorted within each), decoded with
// formats/image.h (transparency composited onto white, as cifar-predict
// does), reduced to the kept tier (reduce_image, as cifar-predict does too)
// and prepared at options.image.image_size as options.image.prep says
// (prepare_image: torchvision's Resize + CenterCrop for an image folder
// data set), or kept whole at options.image.whole_size for random resized crops
// (data/crops.h), each with its size as read. Hidden
// entries (names starting with '.') and files without an image extension
// are ignored and counted.
//
// Decoded once: each photo is kept reduced to the tier of
// core/image_prep.h's kept_side (its shorter side at most 256 px for sizes
// up to 224 at crop 0.875) in a cache file (image_cache.h) keyed by the
// list of files with their sizes and modification times, and every read
// prepares the split from those copies: a second read, at any image size and
// preparation of the tier, decodes nothing.
#pragma once

#include <array>
#include <cstdint>
#include <filesystem>
#include <functional>
#include <stdexcept>
#include <string>
#include <vector>

#include "cifar/data/image_split.h"
#include "cifar/formats/image.h"

namespace cifar {

struct ImageFolderOptions {
  // Where the cache file goes. Empty: beside the data, in DIR/.cifar-cache/.
  // The caller (the app layer) passes e.g. $XDG_CACHE_HOME/cifar-train.
  std::filesystem::path cache_dir;
  // Where the cache goes when beside the data it cannot (a read-only data
  // folder, say), and cache_dir is empty: the app passes
  // ${XDG_CACHE_HOME:-~/.cache}/cifar-train. Empty: no cache then.
  std::filesystem::path spare_cache_dir;
  bool use_cache = true;
  // A file that is not a readable image is skipped (and named in a warning)
  // instead of stopping the read (--skip-bad-images).
  bool skip_bad_images = false;
  // A missing DIR/test: false, an error saying so (and that --val-split holds
  // out training images instead); true, an empty split (0 images, train/'s
  // class names), for a caller that then holds out a validation split.
  bool missing_test_is_empty = false;
  // The caller's option that holds training images out for evaluation
  // ("--val-split"), offered when test/ is missing or empty; empty for a tool
  // that has none (cifar-eval), whose hint then names none.
  std::string holdout_option;
  int64_t max_pixels = kMaxImagePixels;  // per image, before decoding
  // The model's images (resolved by resolve/): each image prepared as
  // image.prep says at image.image_size, or kept whole at image.whole_size
  // (the split's `whole` set) for random resized crops (data/crops.h).
  ImageSpec image;
  // The files to read, chosen from the number the split lists: sorted,
  // distinct int64 indices into the listing (--train-limit, --test-limit:
  // only those are decoded). Unset: every file. Not with skip_bad_images
  // (a skipped file would shift the choice).
  std::function<torch::Tensor(int64_t listed)> pick;
  // Called while decoding (not on a cache hit): images done so far, total.
  // Called on the calling thread, after every few hundred images and at the end.
  std::function<void(int64_t done, int64_t total)> progress;
};

// One image file of a split, as listed.
struct ImageFolderFile {
  std::filesystem::path path;  // DIR/<split>/<class>/...
  std::string relative;        // "<class>/..." (relative to DIR/<split>)
  uint64_t size = 0;           // bytes
  int64_t mtime_ns = 0;        // modification time, nanoseconds since the epoch
  int64_t label = 0;           // index into class_names
};

// What a split folder holds, before anything is decoded.
struct ImageFolderListing {
  std::filesystem::path root;            // DIR/train or DIR/test
  std::vector<std::string> class_names;  // train/'s class folders, sorted
  std::vector<ImageFolderFile> files;    // in torchvision's order
  int64_t hidden_ignored = 0;            // names starting with '.'
  // Hidden folders beside the class folders: ignored here, but classes to
  // torchvision's ImageFolder, whose indices they shift.
  std::vector<std::string> hidden_class_folders;
  int64_t other_ignored = 0;  // not an image file (extension, or not a file)
  // The first few of each, relative to root ("cat/notes.txt"), for messages.
  std::vector<std::string> hidden_names;
  std::vector<std::string> other_names;
};

// How many ignored names a listing keeps, and messages name, of each kind.
inline constexpr size_t kNamedIgnored = 5;

// "train", "val" or "test".
const char* split_folder_name(Split split);

// The names a validation split's folder may have beside train/ (val/,
// Roboflow's valid/, validation/): split_folder takes the one there is.
inline constexpr std::array<const char*, 3> kValFolderNames{"val", "valid", "validation"};

// The folder DIR keeps `split` in: train/ and test/; for validation the one
// of val/, valid/ (Roboflow's name) and validation/ that exists (val/ when
// none does). std::runtime_error, naming both, when two of them exist.
std::filesystem::path split_folder(const std::filesystem::path& dir, Split split);

// True when DIR/train is a folder: the layout this reader takes (for
// telling the data-set kinds apart; it reads nothing else).
bool has_image_folder_layout(const std::filesystem::path& dir);

// "; names are case-sensitive: rename Train/ to train/, Val/ to val/" for
// DIR's folders named as a split folder in another case (Kaggle's Train/
// and Test/); "" when there are none.
std::string split_case_hint(const std::filesystem::path& dir);

// True when split_folder(DIR, split) exists.
bool has_split_folder(const std::filesystem::path& dir, Split split);

// The split that serves as the test split: test/ when there is one, else
// val/ when there is one, else test/ (whose absence reading then reports).
Split test_split_of(const std::filesystem::path& dir);

// Refuses (std::runtime_error naming them) class folders of val/ or test/
// that train/ lacks: a check that reads only folder names, made before
// anything is decoded or written.
void check_split_classes(const std::filesystem::path& dir);

// True when DIR holds no train/ folder but at least one folder that is not
// hidden: a plain folder of class folders (DIR/<class>/...), as a data set's
// val/ or test/ is.
bool is_class_folder(const std::filesystem::path& dir);

// The class names: train/'s class folders, sorted by byte order. Throws
// (naming the path, with a hint) when DIR or DIR/train is missing, when a
// name is not UTF-8 text or holds a control character, or when there are
// fewer than two classes.
std::vector<std::string> image_folder_classes(const std::filesystem::path& dir);

// Lists a split without decoding anything. Besides the checks above: DIR/test
// missing (see missing_test_is_empty: then an empty listing), a split folder
// that holds no class folder (only hidden entries or other files: what it
// holds is named), a class folder with no image, a test class that train/
// lacks, each an error naming it.
ImageFolderListing list_image_folder(const std::filesystem::path& dir, Split split,
                                     const ImageFolderOptions& options = {});

// Reads a split: images (N, 3, side, side) uint8 in the listing's order
// (side: image.image_size, or image.whole_size with `whole` set), labels (N) int64,
// class names. From the cache when its key matches the listing;
// else decodes (logging "decoding N images", calling options.progress) and
// writes the cache (atomically; a cache that cannot be written is a warning,
// not an error). A damaged cache is ignored with a warning and rebuilt. A
// file that is not a readable image is an error naming it, or with
// skip_bad_images a warning naming the skipped files (also on cache hits);
// a split of which no image could be read is an error.
ImageSplit read_image_folder(const std::filesystem::path& dir, Split split,
                             const ImageFolderOptions& options = {});

// Lists a plain folder of class folders (root/<class>/...), each class
// labelled by its index in `known` (the classes of the model it is checked
// against, named `known_source` in the error): a folder `known` lacks is an
// error naming both lists. A class of `known` may be missing.
ImageFolderListing list_class_folder(const std::filesystem::path& root,
                                     const std::vector<std::string>& known,
                                     const std::string& known_source);

// The median of the listed images' shorter sides, as their headers give
// them (formats/image.h: image_dimensions, from each file's first 64 KB,
// across LibTorch's threads): how large the photos are, before any is
// decoded. 0 when no header could be read.
int64_t median_shorter_side(const ImageFolderListing& listing);

// Reads such a folder: every image decoded as read_image_folder decodes
// them, class_names `known`; a data set's val/ or test/ through the data
// set's cache (image_cache.h: class_folder_cache), another not cached.
ImageSplit read_class_folder(const std::filesystem::path& root,
                             const std::vector<std::string>& known, const std::string& known_source,
                             const ImageFolderOptions& options = {});

// What a read throws for a file that is not a readable image (without
// skip_bad_images): its message names the file and the fix.
class UnreadableImage : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

// read_class_folder's split and the file of each image, root / its path in
// the listing, in the split's order (cifar-predict's answers per file).
struct ClassFolderImages {
  ImageSplit split;
  std::vector<std::filesystem::path> files;
};
ClassFolderImages read_class_folder_files(const std::filesystem::path& root,
                                          const std::vector<std::string>& known,
                                          const std::string& known_source,
                                          const ImageFolderOptions& options = {});

}  // namespace cifar
