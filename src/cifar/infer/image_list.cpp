// image_list.cpp: see image_list.h.
#include "cifar/infer/image_list.h"

#include <fmt/format.h>
#include <fmt/ranges.h>
#include <sys/stat.h>

#include <algorithm>
#include <cctype>
#include <filesystem>
#include <set>
#include <stdexcept>
#include <tuple>
#include <utility>

#include "cifar/core/file_io.h"

namespace cifar {
namespace fs = std::filesystem;
namespace {

constexpr size_t kNamedSkipped = 5;  // skipped entries named in the log

bool has_image_extension(const fs::path& path) {
  std::string ext = path.extension().string();
  std::transform(ext.begin(), ext.end(), ext.begin(),
                 [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
  return ext == ".png" || ext == ".jpg" || ext == ".jpeg";
}

void note_skipped(ImageList& list, int64_t& count, const fs::path& path) {
  ++count;
  if (list.skipped_names.size() < kNamedSkipped) list.skipped_names.push_back(path.string());
}

// The folder's entries, with an error that names it when it cannot be read.
std::vector<fs::directory_entry> entries_of(const fs::path& dir) {
  std::vector<fs::directory_entry> entries;
  try {
    for (const auto& e : fs::directory_iterator(dir)) entries.push_back(e);
  } catch (const fs::filesystem_error& e) {
    throw std::runtime_error(
        fmt::format("cannot read folder {}: {}", dir.string(), e.code().message()));
  }
  return entries;
}

// The images under `root`, in sorted(os.walk(root, followlinks=True)) order.
std::vector<std::string> walk(const fs::path& root, ImageList& list) {
  struct Found {
    std::string folder;  // relative to root, as the walk's sort key
    std::string name;
    fs::path path;
  };
  std::vector<Found> found;
  std::set<std::pair<dev_t, ino_t>> seen;  // folders walked (a link loop is walked once)
  std::vector<std::pair<fs::path, std::string>> todo{{root, ""}};
  while (!todo.empty()) {
    auto [dir, rel] = todo.back();
    todo.pop_back();
    struct stat st {};
    if (::stat(dir.c_str(), &st) != 0 || !seen.insert({st.st_dev, st.st_ino}).second) continue;
    for (const auto& e : entries_of(dir)) {
      const std::string name = e.path().filename().string();
      std::error_code ec;
      if (name.starts_with('.')) {
        note_skipped(list, list.skipped_hidden, e.path());
      } else if (fs::is_directory(e.path(), ec)) {
        todo.emplace_back(e.path(), rel.empty() ? name : rel + "/" + name);
      } else if (!has_image_extension(e.path()) ||
                 (fs::exists(e.path(), ec) && !fs::is_regular_file(e.path(), ec))) {
        note_skipped(list, list.skipped_other, e.path());
      } else {  // an image by its name; a dangling link stays, and fails when read
        found.push_back({rel, name, e.path()});
      }
    }
  }
  std::stable_sort(found.begin(), found.end(), [](const Found& a, const Found& b) {
    return std::tie(a.folder, a.name) < std::tie(b.folder, b.name);
  });
  std::vector<std::string> files;
  for (const auto& f : found) files.push_back(f.path.string());
  return files;
}

}  // namespace

ImageList list_images(const std::vector<std::string>& inputs) {
  ImageList list;
  for (const auto& input : inputs) {
    std::error_code ec;
    if (!fs::is_directory(input, ec)) {
      list.files.push_back(input);  // read (or refused) as a file
      continue;
    }
    check_readable_directory(input, "image folder");
    const int64_t skipped_before = list.skipped_other + list.skipped_hidden;
    const auto files = walk(input, list);
    if (files.empty()) {
      const int64_t skipped = list.skipped_other + list.skipped_hidden - skipped_before;
      list.empty_folders.push_back(fmt::format(
          "{} holds no PNG or JPEG image (.png, .jpg or .jpeg, in it or in its subfolders){}",
          input, skipped > 0 ? fmt::format(": only {} other entries", skipped) : ""));
    }
    list.files.insert(list.files.end(), files.begin(), files.end());
  }
  return list;
}

std::string describe_skipped(const ImageList& list) {
  if (list.skipped_other + list.skipped_hidden == 0) return "";
  std::vector<std::string> parts;
  if (list.skipped_other > 0) {
    parts.push_back(fmt::format("{} file{} without a .png, .jpg or .jpeg extension",
                                list.skipped_other, list.skipped_other == 1 ? "" : "s"));
  }
  if (list.skipped_hidden > 0) {
    parts.push_back(fmt::format("{} hidden entr{}", list.skipped_hidden,
                                list.skipped_hidden == 1 ? "y" : "ies"));
  }
  const int64_t named = static_cast<int64_t>(list.skipped_names.size());
  const int64_t total = list.skipped_other + list.skipped_hidden;
  return fmt::format("skipped {} in the folders ({}{})", fmt::join(parts, " and "),
                     fmt::join(list.skipped_names, ", "),
                     total > named ? fmt::format(", and {} more", total - named) : "");
}

}  // namespace cifar
