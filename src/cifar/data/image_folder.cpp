// image_folder.cpp: listing an image folder split and checking its layout
// (see image_folder.h); decoding and the cache are in image_folder_read.cpp.
#include "cifar/data/image_folder.h"

#include <ATen/Parallel.h>
#include <dirent.h>
#include <fcntl.h>
#include <fmt/format.h>
#include <sys/stat.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <iterator>
#include <memory>
#include <set>
#include <stdexcept>
#include <utility>

#include "cifar/core/file_io.h"
#include "cifar/data/image_folder_detail.h"
#include "cifar/formats/toml_text.h"  // is_utf8, show_bytes

namespace cifar {
namespace fs = std::filesystem;

// The helpers the listing shares with image_folder_splits.cpp
// (image_folder_detail.h declares them).
namespace folder_detail {

constexpr const char* kLayoutHint =
    "an image folder holds train/<class>/*.png|jpg|jpeg and optionally val/<class>/... and "
    "test/<class>/... (torchvision's ImageFolder layout); scripts/python/cifar_to_folder.py "
    "writes CIFAR-10 or CIFAR-100 out in it";

bool is_hidden(const std::string& name) {
  return !name.empty() && name[0] == '.';
}

bool has_image_extension(const fs::path& path) {
  std::string ext = path.extension().string();
  std::transform(ext.begin(), ext.end(), ext.begin(),
                 [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
  return ext == ".png" || ext == ".jpg" || ext == ".jpeg";
}

// One entry of a folder, its links followed (ok false: a dangling link or an
// entry stat cannot see).
struct Entry {
  std::string name;
  fs::path path;
  struct stat st {};
  bool ok = false;
  bool is_dir() const { return ok && S_ISDIR(st.st_mode); }
};

// The entries of a folder, sorted by name (byte order). Each is stat'ed
// relative to the open folder (fstatat), which costs less than a whole path
// per file: listing is most of a cached read's time.
std::vector<Entry> entries_of(const fs::path& dir) {
  std::unique_ptr<DIR, int (*)(DIR*)> folder(::opendir(dir.c_str()), ::closedir);
  if (!folder) {
    throw std::runtime_error(fmt::format("cannot list {}: {}", dir.string(), std::strerror(errno)));
  }
  std::vector<Entry> out;
  for (;;) {
    errno = 0;
    const dirent* d = ::readdir(folder.get());
    if (d == nullptr) {
      if (errno == 0) break;
      throw std::runtime_error(
          fmt::format("cannot list {}: {}", dir.string(), std::strerror(errno)));
    }
    const std::string name = d->d_name;
    if (name == "." || name == "..") continue;
    Entry e;
    e.ok = ::fstatat(::dirfd(folder.get()), d->d_name, &e.st, 0) == 0;
    e.path = dir / name;
    e.name = name;
    out.push_back(std::move(e));
  }
  std::sort(out.begin(), out.end(), [](const Entry& a, const Entry& b) { return a.name < b.name; });
  return out;
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
  for (const auto& e : entries_of(root)) {
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

// The image files under one class folder, walked as torchvision's
// make_dataset walks it: sorted(os.walk(class_dir, followlinks=True)), each
// folder's files sorted; a folder reached twice (a link loop) is walked once.
void walk_class(const fs::path& class_dir, const std::string& class_name, int64_t label,
                ImageFolderListing& listing) {
  struct Found {
    std::string folder;  // relative to the split folder, as os.walk's root
    std::string name;
    ImageFolderFile file;
  };
  std::vector<Found> found;
  std::set<std::pair<dev_t, ino_t>> seen;
  std::vector<std::pair<fs::path, std::string>> todo{{class_dir, class_name}};
  while (!todo.empty()) {
    auto [dir, rel] = todo.back();
    todo.pop_back();
    struct stat st {};
    if (::stat(dir.c_str(), &st) != 0 || !seen.insert({st.st_dev, st.st_ino}).second) continue;
    for (const auto& e : entries_of(dir)) {
      if (is_hidden(e.name)) {
        count_hidden(listing, rel + "/" + e.name);
      } else if (e.is_dir()) {
        todo.emplace_back(e.path, rel + "/" + e.name);
      } else if (!has_image_extension(e.path) || (e.ok && !S_ISREG(e.st.st_mode))) {
        count_other(listing, rel + "/" + e.name);
      } else {  // an image by its name; a dangling link stays, and fails when read
        ImageFolderFile f{e.path, rel + "/" + e.name, 0, 0, label};
        if (e.ok) {
          f.size = static_cast<uint64_t>(e.st.st_size);
          f.mtime_ns = int64_t{e.st.st_mtim.tv_sec} * 1'000'000'000 + e.st.st_mtim.tv_nsec;
        }
        found.push_back({rel, e.name, std::move(f)});
      }
    }
  }
  std::stable_sort(found.begin(), found.end(), [](const Found& a, const Found& b) {
    return std::tie(a.folder, a.name) < std::tie(b.folder, b.name);
  });
  for (auto& f : found) listing.files.push_back(std::move(f.file));
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
  listing.root = dir / split_folder_name(split);
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
        listing.root.string(), what_else(listing), split_folder_name(split),
        holdout.empty() ? "" : ", or remove the folder" + holdout));
  }
  const auto unknown = unknown_classes(folders, listing.class_names);
  if (!unknown.empty()) throw classes_train_lacks(dir, split, unknown);
  walk_classes(listing, folders);
  return listing;
}

}  // namespace cifar
