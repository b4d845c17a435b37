// image_list.cpp: see image_list.h.
#include "cifar/infer/image_list.h"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <filesystem>

#include "cifar/core/file_io.h"
#include "cifar/core/names.h"
#include "cifar/data/image_walk.h"

namespace cifar {
namespace fs = std::filesystem;
namespace {

constexpr size_t kNamedSkipped = 5;  // skipped entries named in the log

void note_skipped(ImageList& list, int64_t& count, const fs::path& path) {
  ++count;
  if (list.skipped_names.size() < kNamedSkipped) list.skipped_names.push_back(shown_name(path));
}

// The images under `root`, in torchvision's order (data/image_walk.h).
std::vector<std::string> walk(const fs::path& root, ImageList& list) {
  const ImageWalk walked = walk_images(root, "");
  for (const auto& s : walked.skipped) {
    note_skipped(list, s.hidden ? list.skipped_hidden : list.skipped_other, s.entry.path);
  }
  std::vector<std::string> files;
  files.reserve(walked.images.size());
  for (const auto& w : walked.images) files.push_back(w.entry.path.string());
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
      list.empty_folders.push_back(
          {.path = input,
           .problem = fmt::format(
               "{} holds no PNG or JPEG image (.png, .jpg or .jpeg, in it or in its subfolders){}",
               shown_name(input),
               skipped > 0
                   ? fmt::format(": only {} other entr{}", skipped, skipped == 1 ? "y" : "ies")
                   : ""),
           .at = list.files.size()});
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
  const auto total = static_cast<size_t>(list.skipped_other + list.skipped_hidden);
  return fmt::format("skipped {} in the folders ({})", fmt::join(parts, " and "),
                     first_names(list.skipped_names, list.skipped_names.size(), ", ", total));
}

}  // namespace cifar
