// image_folder_splits.cpp: which splits an image folder has (val/, test/),
// their classes checked against train/'s before anything is read, and plain
// folders of class folders (see image_folder.h); the listing's shared
// helpers are image_folder.cpp's (image_folder_detail.h).
#include <ATen/Parallel.h>
#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <cctype>
#include <iterator>

#include "cifar/core/file_io.h"
#include "cifar/core/names.h"
#include "cifar/data/image_folder.h"
#include "cifar/data/image_folder_detail.h"

namespace cifar {
namespace fs = std::filesystem;

namespace folder_detail {

std::string folders_in(const fs::path& dir) {
  std::vector<std::string> names;
  std::error_code ec;
  for (fs::directory_iterator it(dir, ec), end; !ec && it != end; it.increment(ec)) {
    const std::string name = it->path().filename().string();
    if (!is_hidden(name) && it->is_directory(ec)) names.push_back(shown_name(name) + "/");
  }
  if (names.empty()) return "it holds no folder";
  std::sort(names.begin(), names.end());
  std::string out = "it holds ";
  for (size_t i = 0; i < names.size(); ++i) out += (i == 0 ? "" : ", ") + names[i];
  return out + split_case_hint(dir);
}

std::vector<std::string> unknown_classes(const std::vector<std::string>& folders,
                                         const std::vector<std::string>& known) {
  std::vector<std::string> unknown;
  for (const auto& name : folders) {
    if (std::find(known.begin(), known.end(), name) == known.end()) unknown.push_back(name);
  }
  return unknown;
}

void walk_classes(ImageFolderListing& listing, const std::vector<std::string>& folders) {
  std::vector<ImageFolderListing> parts(folders.size());
  at::parallel_for(0, static_cast<int64_t>(folders.size()), 1, [&](int64_t begin, int64_t end) {
    for (auto i = static_cast<size_t>(begin); i < static_cast<size_t>(end); ++i) {
      const auto& names = listing.class_names;
      const auto label = std::find(names.begin(), names.end(), folders[i]) - names.begin();
      walk_class(listing.root / folders[i], folders[i], label, parts[i]);
    }
  });
  for (size_t i = 0; i < parts.size(); ++i) {
    if (parts[i].files.empty()) {
      throw std::runtime_error(fmt::format(
          "class folder {} holds no image (.png, .jpg or .jpeg, in it or in its subfolders): add "
          "its images, or remove the folder",
          (listing.root / folders[i]).string()));
    }
    listing.hidden_ignored += parts[i].hidden_ignored;
    listing.other_ignored += parts[i].other_ignored;
    for (const auto& name : parts[i].hidden_names) {
      if (listing.hidden_names.size() < kNamedIgnored) listing.hidden_names.push_back(name);
    }
    for (const auto& name : parts[i].other_names) {
      if (listing.other_names.size() < kNamedIgnored) listing.other_names.push_back(name);
    }
    std::move(parts[i].files.begin(), parts[i].files.end(), std::back_inserter(listing.files));
  }
}

std::runtime_error classes_train_lacks(const fs::path& dir, Split split,
                                       const std::vector<std::string>& unknown) {
  return std::runtime_error(fmt::format(
      "{} holds class folder(s) {} that {} lacks: class indices come from train/'s folders, so "
      "add training images for them, or remove them from {}/",
      split_folder(dir, split).string(), quoted_list(unknown), (dir / "train").string(),
      split_folder(dir, split).filename().string()));
}

}  // namespace folder_detail

using namespace folder_detail;

std::string split_case_hint(const fs::path& dir) {
  std::vector<std::string> renames;
  std::error_code ec;
  for (fs::directory_iterator it(dir, ec), end; !ec && it != end; it.increment(ec)) {
    const std::string name = it->path().filename().string();
    const std::string lower = lower_case(name);
    const bool split_name =
        lower == split_folder_name(Split::kTrain) || lower == split_folder_name(Split::kTest) ||
        std::find(kValFolderNames.begin(), kValFolderNames.end(), lower) != kValFolderNames.end();
    if (split_name && lower != name && it->is_directory(ec) && !fs::exists(dir / lower, ec)) {
      renames.push_back(fmt::format("{}/ to {}/", name, lower));
    }
  }
  if (renames.empty()) return "";
  std::sort(renames.begin(), renames.end());
  return "; names are case-sensitive: rename " + fmt::format("{}", fmt::join(renames, ", "));
}

bool has_split_folder(const fs::path& dir, Split split) {
  std::error_code ec;
  return fs::exists(split_folder(dir, split), ec);
}

Split test_split_of(const fs::path& dir) {
  if (!has_split_folder(dir, Split::kTest) && has_split_folder(dir, Split::kVal)) {
    return Split::kVal;
  }
  return Split::kTest;
}

void check_split_classes(const fs::path& dir) {
  const std::vector<std::string> known = image_folder_classes(dir);
  for (const Split split : {Split::kVal, Split::kTest}) {
    const fs::path root = split_folder(dir, split);
    std::error_code ec;
    if (!fs::exists(root, ec)) continue;  // missing: reading it says so, if it is needed
    check_readable_directory(root, "image folder");
    ImageFolderListing counts;
    const auto unknown = unknown_classes(class_folders(root, counts), known);
    if (!unknown.empty()) throw classes_train_lacks(dir, split, unknown);
  }
}

bool is_class_folder(const fs::path& dir) {
  std::error_code ec;
  if (!fs::is_directory(dir, ec) || has_image_folder_layout(dir)) return false;
  for (fs::directory_iterator it(dir, ec), end; !ec && it != end; it.increment(ec)) {
    if (!is_hidden(it->path().filename().string()) && it->is_directory(ec)) return true;
  }
  return false;
}

ImageFolderListing list_class_folder(const fs::path& root, const std::vector<std::string>& known,
                                     const std::string& known_source) {
  check_readable_directory(root, "image folder");
  ImageFolderListing listing;
  listing.root = root;
  listing.class_names = known;
  const auto folders = class_folders(root, listing);
  if (folders.empty()) {
    throw std::runtime_error(
        fmt::format("{} holds no class folder (it holds {}): give a folder of class folders "
                    "(<class>/*.png|jpg|jpeg) or a data set",
                    root.string(), what_else(listing)));
  }
  const auto unknown = unknown_classes(folders, known);
  if (!unknown.empty()) {
    throw std::runtime_error(fmt::format(
        "{} holds class folder(s) {} that {} does not know: the folder's classes are {}, the "
        "model's {}; evaluate it on folders of the model's classes only",
        root.string(), quoted_list(unknown), known_source, quoted_list(folders),
        quoted_list(known)));
  }
  walk_classes(listing, folders);
  return listing;
}

}  // namespace cifar
