// image_folder.cpp: listing an image folder split and checking its layout
// (see image_folder.h); the walk of each class folder is image_walk.cpp's,
// decoding and the cache are in image_folder_read.cpp.
#include "cifar/data/image_folder.h"

#include <ATen/Parallel.h>
#include <fcntl.h>
#include <fmt/format.h>

#include <algorithm>
#include <iterator>
#include <stdexcept>
#include <utility>

#include "cifar/core/file_io.h"
#include "cifar/data/image_folder_detail.h"
#include "cifar/data/image_walk.h"
#include "cifar/formats/toml_text.h"  // is_utf8, show_bytes

namespace cifar {
namespace fs = std::filesystem;

// The helpers the listing shares with image_folder_splits.cpp
// (image_folder_detail.h declares them).
namespace folder_detail {

constexpr const char* kLayoutHint =
    "an image folder holds train/<class>/*.png|jpg|jpeg and optionally val/<class>/... (or "
    "valid/ or validation/) and "
    "test/<class>/... (torchvision's ImageFolder layout); scripts/python/cifar_to_folder.py "
    "writes CIFAR-10 or CIFAR-100 out in it";

bool is_hidden(const std::string& name) {
  return !name.empty() && name[0] == '.';
}

// A name for a one-line message: quoted, control characters as \xNN, bytes
// that are not UTF-8 as show_bytes shows them.
std::string printable(const std::string& name) {
  std::string out;
  for (const char c : show_bytes(name)) {
    const auto byte = static_cast<unsigned char>(c);
    out += byte < 0x20 || byte == 0x7f ? fmt::format("\\x{:02X}", byte) : std::string(1, c);
  }
  return "'" + out + "'";
}

void check_class_name(const std::string& name, const fs::path& root) {
  const bool utf8 = is_utf8(name);
  const bool control = std::any_of(name.begin(), name.end(), [](char c) {
    return static_cast<unsigned char>(c) < 0x20 || c == 0x7f;
  });
  if (!utf8 || control) {
    throw std::runtime_error(fmt::format(
        "class folder {} in {} {}: class names go into checkpoints, metrics files and Python, so "
        "rename the folder to UTF-8 text without control characters",
        printable(name), root.string(),
        utf8 ? "holds a control character (a tab, a newline, ...)" : "is not UTF-8 text"));
  }
}

// An entry ignored, counted and (the first few) named relative to the split folder.
void count_hidden(ImageFolderListing& counts, const std::string& relative) {
  ++counts.hidden_ignored;
  if (counts.hidden_names.size() < kNamedIgnored) counts.hidden_names.push_back(relative);
}

void count_other(ImageFolderListing& counts, const std::string& relative) {
  ++counts.other_ignored;
  if (counts.other_names.size() < kNamedIgnored) counts.other_names.push_back(relative);
}

// The class folders of a split folder, sorted; counts what else it holds.
std::vector<std::string> class_folders(const fs::path& root, ImageFolderListing& counts) {
  std::vector<std::string> names;
  for (const auto& e : folder_entries(root)) {
    if (is_hidden(e.name)) {
      count_hidden(counts, e.name);
      if (e.is_dir()) counts.hidden_class_folders.push_back(e.name);
    } else if (e.is_dir()) {
      check_class_name(e.name, root);
      names.push_back(e.name);
    } else {
      count_other(counts, e.name);
    }
  }
  return names;
}

// "N hidden entries ('.a', '.b') and M other files ('x.txt')": what a split
// folder holds besides class folders; "nothing" when it is empty.
std::string what_else(const ImageFolderListing& counts) {
  const auto some = [](int64_t n, const std::vector<std::string>& names, const char* one,
                       const char* many) {
    std::string out = fmt::format("{} {} (", n, n == 1 ? one : many);
    for (size_t i = 0; i < names.size(); ++i) out += (i == 0 ? "" : ", ") + printable(names[i]);
    return out + (n > static_cast<int64_t>(names.size()) ? ", ...)" : ")");
  };
  std::vector<std::string> parts;
  if (counts.hidden_ignored > 0) {
    parts.push_back(
        some(counts.hidden_ignored, counts.hidden_names, "hidden entry", "hidden entries"));
  }
  if (counts.other_ignored > 0) {
    parts.push_back(some(counts.other_ignored, counts.other_names, "other file", "other files"));
  }
  if (parts.empty()) return "nothing";
  return parts.size() == 1 ? parts[0] : parts[0] + " and " + parts[1];
}

std::string quoted_list(const std::vector<std::string>& names) {
  std::string out;
  for (const auto& n : names) out += (out.empty() ? "'" : ", '") + n + "'";
  return out;
}

// The image files under one class folder, in torchvision's order
// (image_walk.h), with what else it holds counted.
void walk_class(const fs::path& class_dir, const std::string& class_name, int64_t label,
                ImageFolderListing& listing) {
  ImageWalk walk = walk_images(class_dir, class_name);
  for (const auto& s : walk.skipped) {
    if (s.hidden) {
      count_hidden(listing, s.relative);
    } else {
      count_other(listing, s.relative);
    }
  }
  for (auto& w : walk.images) {
    ImageFolderFile f{std::move(w.entry.path), std::move(w.relative), 0, 0, label};
    if (w.entry.ok) {
      f.size = static_cast<uint64_t>(w.entry.st.st_size);
      f.mtime_ns = int64_t{w.entry.st.st_mtim.tv_sec} * 1'000'000'000 + w.entry.st.st_mtim.tv_nsec;
    }
    listing.files.push_back(std::move(f));
  }
}

void check_split_folder(const fs::path& dir, const fs::path& root) {
  std::error_code ec;
  if (!fs::exists(root, ec)) {
    throw std::runtime_error(fmt::format("{} has no {}/ folder ({}): {}", dir.string(),
                                         root.filename().string(), folders_in(dir), kLayoutHint));
  }
  check_readable_directory(root, "image folder");
}

}  // namespace folder_detail

using namespace folder_detail;

const char* split_folder_name(Split split) {
  switch (split) {
    case Split::kTrain:
      return "train";
    case Split::kVal:
      return "val";
    case Split::kTest:
      return "test";
  }
  return "?";
}

namespace {
// A held-out split that is train/ itself (a link, val -> train) would be
// evaluated as if held out, though it is trained on.
fs::path apart_from_train(const fs::path& dir, const fs::path& folder) {
  std::error_code ec;
  const fs::path train = dir / split_folder_name(Split::kTrain);
  if (fs::is_directory(folder, ec) && fs::equivalent(folder, train, ec)) {
    throw std::runtime_error(fmt::format(
        "{} is the folder {} itself (a link): its images are trained on, so they cannot "
        "measure the model; make it a folder of images of its own, or remove it",
        folder.string(), train.string()));
  }
  return folder;
}
}  // namespace

fs::path split_folder(const fs::path& dir, Split split) {
  if (split == Split::kTrain) return dir / split_folder_name(split);
  if (split == Split::kTest) return apart_from_train(dir, dir / split_folder_name(split));
  std::vector<std::string> found;
  for (const char* name : kValFolderNames) {
    std::error_code ec;
    if (fs::is_directory(dir / name, ec)) found.emplace_back(name);
  }
  if (found.size() > 1) {
    throw std::runtime_error(fmt::format(
        "{} has both {}/ and {}/: each is read as the validation split, so say which by "
        "renaming or moving the other away",
        dir.string(), found[0], found[1]));
  }
  return apart_from_train(dir, dir / (found.empty() ? "val" : found[0]));
}

bool has_image_folder_layout(const fs::path& dir) {
  std::error_code ec;
  return fs::is_directory(dir / "train", ec);
}

std::vector<std::string> image_folder_classes(const fs::path& dir) {
  check_readable_directory(dir, "image folder", kLayoutHint);
  const fs::path root = dir / "train";
  check_split_folder(dir, root);
  ImageFolderListing counts;
  auto names = class_folders(root, counts);
  if (names.size() < 2) {
    throw std::runtime_error(fmt::format(
        "{} holds {} class folder(s){}{}{}: a classifier needs at least two classes, one folder "
        "of images each",
        root.string(), names.size(), names.empty() ? "" : ": ", quoted_list(names),
        names.empty() ? fmt::format(" (it holds {})", what_else(counts)) : ""));
  }
  return names;
}

ImageFolderListing list_image_folder(const fs::path& dir, Split split,
                                     const ImageFolderOptions& options) {
  ImageFolderListing listing;
  listing.class_names = image_folder_classes(dir);
  listing.root = split_folder(dir, split);
  // The tool's own way round a missing or empty test/, when it has one.
  const std::string holdout =
      options.holdout_option.empty()
          ? ""
          : fmt::format(", or hold out training images for evaluation with {} N",
                        options.holdout_option);
  std::error_code ec;
  if (split != Split::kTrain && !fs::exists(listing.root, ec)) {
    if (split == Split::kTest && options.missing_test_is_empty) return listing;
    throw std::runtime_error(fmt::format(
        "{} has no {}/ folder ({}), so there are no {} images: add {}/<class>/... beside "
        "train/{}",
        dir.string(), split_folder_name(split), folders_in(dir),
        split == Split::kTest ? "test" : "validation", split_folder_name(split),
        split == Split::kTest ? holdout : std::string()));
  }
  check_split_folder(dir, listing.root);
  const auto folders = class_folders(listing.root, listing);
  if (folders.empty()) {  // an empty split the user laid out is no split at all
    throw std::runtime_error(fmt::format(
        "{} holds no class folder (it holds {}), so it has no images: add {}/<class>/... with "
        "the images of each class{}",
        listing.root.string(), what_else(listing), listing.root.filename().string(),
        holdout.empty() ? "" : ", or remove the folder" + holdout));
  }
  const auto unknown = unknown_classes(folders, listing.class_names);
  if (!unknown.empty()) throw classes_train_lacks(dir, split, unknown);
  walk_classes(listing, folders);
  return listing;
}

}  // namespace cifar
