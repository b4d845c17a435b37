// dataset_kinds.cpp: the table of data-set kinds (dataset.h): each kind's
// name, how it is recognised, read and normalised, and which files it reads
// and writes. Adding a kind is its reader's file, one entry here and its test.
#include <fmt/format.h>

#include <system_error>

#include "cifar/data/cifar10.h"
#include "cifar/data/dataset.h"
#include "cifar/data/image_cache.h"

namespace cifar {
namespace fs = std::filesystem;

namespace {

// The first file of `names` that `dir` holds, or "".
std::string first_present(const fs::path& dir, const std::vector<std::string>& names) {
  for (const auto& name : names) {
    std::error_code ec;
    if (fs::exists(fs::symlink_status(dir / name, ec))) return name;
  }
  return "";
}

std::vector<fs::path> in_dir(const fs::path& dir, const std::vector<std::string>& names) {
  std::vector<fs::path> paths;
  for (const auto& name : names) paths.push_back(dir / name);
  return paths;
}

// --- cifar10: the binary batches, 10 classes -------------------------------------

std::vector<std::string> cifar10_files() {
  std::vector<std::string> names = batch_file_names(Split::kTrain);
  names.insert(names.begin() + 1, {"test_batch.bin", "batches.meta.txt"});  // detection order
  return names;
}

DatasetKindEntry cifar10() {
  return {.name = "cifar10",
          .needs =
              "data_batch_1.bin ... data_batch_5.bin and test_batch.bin "
              "(scripts/download_cifar10.sh)",
          .prep = kWholeImage,
          .detect = [](const fs::path& dir) { return first_present(dir, cifar10_files()); },
          .read = [](const DatasetOptions& o, Split split) { return read_cifar10(o.dir, split); },
          .normalization = [](const ImageSplit&) { return Normalization{}; },  // CIFAR-10's
          .files = [](const fs::path& dir) { return in_dir(dir, cifar10_files()); }};
}

// --- cifar100: train.bin and test.bin, 100 fine or 20 coarse classes ---------------

DatasetKindEntry cifar100() {
  return {.name = "cifar100",
          .needs = "train.bin, test.bin and fine_label_names.txt (scripts/download_cifar100.sh)",
          .prep = kWholeImage,
          .label_sets = true,
          .detect = [](const fs::path& dir) { return first_present(dir, cifar100_file_names()); },
          .read = [](const DatasetOptions& o,
                     Split split) { return read_cifar100(o.dir, split, o.labels); },
          .normalization = [](const ImageSplit&) { return cifar100_normalization(); },
          .files = [](const fs::path& dir) { return in_dir(dir, cifar100_file_names()); }};
}

// --- folder: torchvision's ImageFolder, photos of any shape ------------------------

ImageSplit read_folder(const DatasetOptions& options, Split split) {
  ImageFolderOptions folder = options.folder;
  folder.image = options.image;
  if (split != Split::kTrain) folder.image.whole_size = 0;  // evaluated as prepared
  return read_image_folder(options.dir, split, folder);
}

std::vector<NamedFile> folder_caches(const fs::path& dir) {
  std::vector<NamedFile> files;
  for (const Split split : {Split::kTrain, Split::kVal, Split::kTest}) {
    for (const int64_t tier : cache_tiers()) {
      files.push_back({fmt::format("the image cache of --data's {}/", split_folder_name(split)),
                       image_cache_path(dir, split, {}, tier)});
    }
  }
  return files;
}

DatasetKindEntry folder() {
  return {.name = "folder",
          .needs =
              "train/<class>/ subfolders of PNG or JPEG images (and val/<class>/, "
              "test/<class>/)",
          .prep = kTorchvisionEval,
          .resized_crops = true,
          .image_files = true,
          .photo_sizes =
              [](const fs::path& dir) {
                const auto listing = list_image_folder(dir, Split::kTrain, {});
                return std::pair{static_cast<int64_t>(listing.files.size()),
                                 median_shorter_side(listing)};
              },
          .detect =
              [](const fs::path& dir) {
                return has_image_folder_layout(dir) ? std::string("train/") : std::string();
              },
          .read = read_folder,
          .normalization = measured_normalization,
          .files = [](const fs::path&) { return std::vector<fs::path>{}; },
          .outputs = folder_caches};
}

}  // namespace

const std::vector<DatasetKindEntry>& dataset_kinds() {
  // One line per kind; the first is what a file that names none was trained on.
  static const std::vector<DatasetKindEntry> entries{cifar10(), cifar100(), folder()};
  return entries;
}

}  // namespace cifar
