// image_walk.h: the image files under a folder, found as torchvision finds
// them; image folders (image_folder.cpp, one class folder at a time) and
// cifar-predict's folders (infer/image_list.cpp) both walk with it.
//
// torchvision's ImageFolder (make_dataset) walks a folder with
// sorted(os.walk(dir, followlinks=True)), each folder's files sorted, and
// keeps the files whose extension is an image's. walk_images does the same:
// links are followed, a folder reached twice (a link loop) is walked once,
// and hidden entries (names starting with '.') and files that are no image
// by their name, or no regular file, are skipped and handed back apart, in
// the order the walk met them, for the callers' counts and messages.
#pragma once

#include <sys/stat.h>

#include <filesystem>
#include <string>
#include <vector>

namespace cifar {

// .png, .jpg or .jpeg, in any case.
bool has_image_extension(const std::filesystem::path& path);

// One entry of a folder, its links followed (ok false: a dangling link or an
// entry stat cannot see).
struct FolderEntry {
  std::string name;
  std::filesystem::path path;  // the folder / name
  struct stat st {};
  bool ok = false;
  bool is_dir() const { return ok && S_ISDIR(st.st_mode); }
};

// The entries of `dir`, sorted by name as Python sorts them (core/names.h:
// code points, a byte that is not UTF-8 as its surrogate), each stat'ed relative
// to the open folder (fstatat, cheaper than a whole path per file). Throws
// std::runtime_error "cannot list DIR: <why>" when it cannot be read.
std::vector<FolderEntry> folder_entries(const std::filesystem::path& dir);

struct WalkedEntry {
  FolderEntry entry;
  std::string relative;  // "prefix/sub/name" ("sub/name" with no prefix)
  bool hidden = false;   // skipped entries: a hidden one, else no image
};

struct ImageWalk {
  std::vector<WalkedEntry> images;   // in torchvision's order; a dangling link stays
  std::vector<WalkedEntry> skipped;  // hidden entries and other files, as met
};

// The walk of `dir`, the relative names under `prefix` (a class folder's
// name; empty for none). Throws what folder_entries throws.
ImageWalk walk_images(const std::filesystem::path& dir, const std::string& prefix);

}  // namespace cifar
