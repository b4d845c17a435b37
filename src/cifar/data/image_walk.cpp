// image_walk.cpp: the sorted recursive walk of a folder for its images (see
// image_walk.h).
#include "cifar/data/image_walk.h"

#include <dirent.h>
#include <fmt/format.h>

#include <algorithm>
#include <cctype>
#include <cerrno>
#include <cstring>
#include <map>
#include <memory>
#include <set>
#include <stdexcept>
#include <tuple>
#include <utility>

#include "cifar/core/names.h"

namespace cifar {
namespace fs = std::filesystem;

bool has_image_extension(const fs::path& path) {
  const std::string ext = lower_case(path.extension().string());
  return ext == ".png" || ext == ".jpg" || ext == ".jpeg";
}

std::vector<FolderEntry> folder_entries(const fs::path& dir) {
  std::unique_ptr<DIR, int (*)(DIR*)> folder(::opendir(dir.c_str()), ::closedir);
  if (!folder) {
    const int err = errno;
    throw std::runtime_error(fmt::format(
        "cannot list {}: {}{}", dir.string(), std::strerror(err),
        err == EACCES ? "; let this user read it (chmod a+rx), or move it out of the folder" : ""));
  }
  std::vector<FolderEntry> out;
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
    FolderEntry e;
    e.ok = ::fstatat(::dirfd(folder.get()), d->d_name, &e.st, 0) == 0;
    e.path = dir / name;
    e.name = name;
    out.push_back(std::move(e));
  }
  std::sort(out.begin(), out.end(), [](const FolderEntry& a, const FolderEntry& b) {
    return python_name_less(a.name, b.name);
  });
  return out;
}

namespace {
// The folders that hold `dir` (its parent, and so on up to the root), by
// device and inode.
std::map<std::pair<dev_t, ino_t>, fs::path> holders_of(const fs::path& dir) {
  std::map<std::pair<dev_t, ino_t>, fs::path> holders;
  std::error_code ec;
  fs::path at = fs::weakly_canonical(dir, ec);
  if (ec) return holders;
  while (at.has_parent_path() && at.parent_path() != at) {
    at = at.parent_path();
    struct stat st {};
    if (::stat(at.c_str(), &st) == 0) holders.emplace(std::pair{st.st_dev, st.st_ino}, at);
  }
  return holders;
}
}  // namespace

ImageWalk walk_images(const fs::path& dir, const std::string& prefix) {
  struct Found {
    std::string folder;  // relative to the walk's start, as os.walk's root
    WalkedEntry walked;
  };
  std::vector<Found> found;
  ImageWalk walk;
  std::set<std::pair<dev_t, ino_t>> seen;
  std::vector<std::pair<fs::path, std::string>> todo{{dir, prefix}};
  // A link back to a folder that holds this one (class -> .., say) would
  // read the whole split again under this name: training images in every
  // class, validation images among them.
  const auto holders = holders_of(dir);
  while (!todo.empty()) {
    auto [folder, rel] = todo.back();
    todo.pop_back();
    struct stat st {};
    if (::stat(folder.c_str(), &st) != 0 || !seen.insert({st.st_dev, st.st_ino}).second) continue;
    for (auto& e : folder_entries(folder)) {
      std::string relative = rel.empty() ? e.name : rel + "/" + e.name;
      const bool hidden = !e.name.empty() && e.name[0] == '.';
      if (hidden) {
        walk.skipped.push_back({std::move(e), std::move(relative), true});
      } else if (e.is_dir()) {
        if (const auto holder = holders.find({e.st.st_dev, e.st.st_ino}); holder != holders.end()) {
          throw std::runtime_error(fmt::format(
              "{} leads back to {}, a folder that holds {}: its images would be read again "
              "under {}; remove the link",
              e.path.string(), holder->second.string(), dir.string(),
              prefix.empty() ? dir.string() : prefix));
        }
        todo.emplace_back(e.path, std::move(relative));
      } else if (!has_image_extension(e.path) || (e.ok && !S_ISREG(e.st.st_mode))) {
        walk.skipped.push_back({std::move(e), std::move(relative), false});
      } else {  // an image by its name; a dangling link stays, and fails when read
        found.push_back({rel, {std::move(e), std::move(relative), false}});
      }
    }
  }
  std::stable_sort(found.begin(), found.end(), [](const Found& a, const Found& b) {
    if (a.folder != b.folder) return python_name_less(a.folder, b.folder);
    return python_name_less(a.walked.entry.name, b.walked.entry.name);
  });
  walk.images.reserve(found.size());
  for (auto& f : found) walk.images.push_back(std::move(f.walked));
  return walk;
}

}  // namespace cifar
