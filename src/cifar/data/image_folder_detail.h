// image_folder_detail.h: the helpers of image folder listing that
// image_folder.cpp (a data set's splits) and image_folder_splits.cpp (which
// splits there are, and plain folders of class folders) share, and the
// decoding that image_folder_read.cpp uses (image_folder_decode.cpp). Not for
// other files: image_folder.h is the interface.
#pragma once

#include <array>
#include <filesystem>
#include <stdexcept>
#include <string>
#include <vector>

#include "cifar/data/image_folder.h"

namespace cifar::folder_detail {

// A name starting with '.'.
bool is_hidden(const std::string& name);

// The class folders of a split folder, sorted; counts what else it holds.
std::vector<std::string> class_folders(const std::filesystem::path& root,
                                       ImageFolderListing& counts);

// "N hidden entries ('.a', '.b') and M other files ('x.txt')", or "nothing".
std::string what_else(const ImageFolderListing& counts);

// "'a', 'b'".
std::string quoted_list(const std::vector<std::string>& names);

// The image files under one class folder, in torchvision's order, into `listing`.
void walk_class(const std::filesystem::path& class_dir, const std::string& class_name,
                int64_t label, ImageFolderListing& listing);

// Walks the class folders `folders` of listing.root side by side, each
// labelled by its index in listing.class_names; a class folder without an
// image is an error naming it.
void walk_classes(ImageFolderListing& listing, const std::vector<std::string>& folders);

// "a; b; c; d; e; and 2 more": the first five of the files that are not
// readable images (their errors), as the error and --skip-bad-images'
// warning name them.
std::string named_unreadable(const std::vector<std::string>& errors);

// "it holds train/, val/" or "it holds no folder": the folders of `dir`
// that are not hidden, for the message of a missing split.
std::string folders_in(const std::filesystem::path& dir);

// The names of `folders` that `known` lacks.
std::vector<std::string> unknown_classes(const std::vector<std::string>& folders,
                                         const std::vector<std::string>& known);

// The error for class folders of DIR/<split> that train/ lacks.
std::runtime_error classes_train_lacks(const std::filesystem::path& dir, Split split,
                                       const std::vector<std::string>& unknown);

// The files of a listing decoded: each photo's copy kept (reduced to
// kept_side_of(options.image)) in its order, their labels and sizes as read;
// the files that are no readable image left out and named in `skipped`
// (with skip_bad_images), else the first of them an error naming it and
// the fix.
struct Decoded {
  std::vector<torch::Tensor> kept;  // (3, h, w) uint8 each, contiguous
  torch::Tensor labels;
  torch::Tensor sizes;  // (N, 2) int64 (height, width) as read
  std::vector<std::string> skipped;
};

// The side images are stored at: the model's (prepared), or a whole image's.
int64_t stored_side(const ImageFolderOptions& options);

// Decodes (and reduces) every file of the listing, chunk by chunk, each chunk
// spread over LibTorch's threads, calling options.progress after each.
Decoded decode_listing(const ImageFolderListing& listing, const ImageFolderOptions& options);

// The split's images (N, 3, S, S) uint8, S stored_side(options): each kept
// copy prepared, or kept whole, as options.image says, across LibTorch's
// threads.
torch::Tensor prepare_kept(const std::vector<torch::Tensor>& kept,
                           const ImageFolderOptions& options);

}  // namespace cifar::folder_detail
