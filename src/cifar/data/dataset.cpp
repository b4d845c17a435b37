// dataset.cpp: the kinds of data set, detected and read (dataset.h).
#include "cifar/data/dataset.h"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <cmath>

#include "cifar/core/errors.h"
#include "cifar/core/file_io.h"
#include "cifar/data/cifar10.h"
#include "cifar/data/crops.h"
#include "cifar/data/image_cache.h"

namespace cifar {
namespace fs = std::filesystem;

namespace {

constexpr const char* kNeeds =
    "cifar10 needs data_batch_1.bin ... data_batch_5.bin and test_batch.bin "
    "(scripts/download_cifar10.sh); cifar100 needs train.bin, test.bin and "
    "fine_label_names.txt (scripts/download_cifar100.sh); folder needs train/<class>/ "
    "subfolders of PNG or JPEG images (and val/<class>/, test/<class>/)";

constexpr const char* kFolderHint =
    "get CIFAR-10 with scripts/download_cifar10.sh (CIFAR-100: scripts/download_cifar100.sh), "
    "or point --data (or the CIFAR10_DIR environment variable) at a data folder";

bool present(const fs::path& path) {
  std::error_code ec;
  return fs::exists(fs::symlink_status(path, ec));
}

// The first file of `names` that `dir` holds, or "".
std::string first_present(const fs::path& dir, const std::vector<std::string>& names) {
  for (const auto& name : names) {
    if (present(dir / name)) return name;
  }
  return "";
}

// "a, b, c and 4 more" of the folder's entries, or "nothing".
std::string listing(const fs::path& dir) {
  std::vector<std::string> names;
  std::error_code ec;
  for (fs::directory_iterator it(dir, ec), end; !ec && it != end; it.increment(ec)) {
    names.push_back(it->path().filename().string() + (it->is_directory(ec) ? "/" : ""));
  }
  if (names.empty()) return "nothing";
  std::sort(names.begin(), names.end());
  constexpr size_t kShown = 8;
  const size_t more = names.size() > kShown ? names.size() - kShown : 0;
  names.resize(std::min(names.size(), kShown));
  return fmt::format("{}{}", fmt::join(names, ", "),
                     more > 0 ? fmt::format(" and {} more", more) : std::string());
}

}  // namespace

const std::vector<DatasetKindEntry>& dataset_kinds() {
  // One line per kind; the first is what a file that names none was trained on.
  static const std::vector<DatasetKindEntry> entries{
      // CIFAR's images are the model's size already: taken whole, translated.
      {.kind = DatasetKind::kCifar10,
       .name = "cifar10",
       .prep = kWholeImage,
       .resized_crops = false},
      {.kind = DatasetKind::kCifar100,
       .name = "cifar100",
       .prep = kWholeImage,
       .resized_crops = false},
      // Photos of any shape: torchvision's centre crop and random resized crops.
      {.kind = DatasetKind::kFolder,
       .name = "folder",
       .prep = kTorchvisionEval,
       .resized_crops = true},
  };
  return entries;
}

DatasetKind parse_dataset_kind(const std::string& text) {
  const auto& entries = dataset_kinds();
  const auto it = std::ranges::find(entries, text, &DatasetKindEntry::name);
  if (it != entries.end()) return it->kind;
  std::vector<std::string> names;
  for (const auto& e : entries) names.push_back(e.name);
  throw UsageError(fmt::format("unknown --dataset '{}': auto (detected from the folder), {}", text,
                               fmt::join(names, ", ")));
}

std::optional<DatasetKind> dataset_request(const std::string& text) {
  if (text == "auto") return std::nullopt;
  return parse_dataset_kind(text);
}

std::string to_string(DatasetKind kind) {
  const auto& entries = dataset_kinds();
  const auto it = std::ranges::find(entries, kind, &DatasetKindEntry::kind);
  return it != entries.end() ? it->name : "?";
}

DatasetKind detect_dataset(const fs::path& dir) {
  check_readable_directory(dir, "data folder", kFolderHint);
  std::vector<std::string> cifar10_names = batch_file_names(Split::kTrain);
  cifar10_names.insert(cifar10_names.begin() + 1, {"test_batch.bin", "batches.meta.txt"});
  std::vector<std::pair<DatasetKind, std::string>> found;
  if (auto f = first_present(dir, cifar10_names); !f.empty()) {
    found.emplace_back(DatasetKind::kCifar10, f);
  }
  if (auto f = first_present(dir, cifar100_file_names()); !f.empty()) {
    found.emplace_back(DatasetKind::kCifar100, f);
  }
  if (has_image_folder_layout(dir)) found.emplace_back(DatasetKind::kFolder, "train/");
  if (found.size() == 1) return found.front().first;
  if (found.empty()) {
    throw std::runtime_error(fmt::format(
        "{} holds no data set cifar-train knows (it holds {}): {}; or name the kind with "
        "--dataset",
        dir.string(), listing(dir), kNeeds));
  }
  std::vector<std::string> kinds;
  for (const auto& [kind, file] : found)
    kinds.push_back(fmt::format("{} ({})", to_string(kind), file));
  throw std::runtime_error(fmt::format(
      "{} holds files of more than one data set: {}; keep one data set per folder, or choose "
      "one with --dataset cifar10|cifar100|folder ({})",
      dir.string(), fmt::join(kinds, " and "), kNeeds));
}

DatasetKind dataset_kind(const DatasetOptions& options) {
  return options.kind ? *options.kind : detect_dataset(options.dir);
}

namespace {
const DatasetKindEntry& entry_of(DatasetKind kind) {
  const auto& entries = dataset_kinds();
  const auto it = std::ranges::find(entries, kind, &DatasetKindEntry::kind);
  if (it == entries.end()) throw std::logic_error("a data set kind without its entry");
  return *it;
}
}  // namespace

ImagePrep dataset_prep(const DatasetOptions& options, DatasetKind kind) {
  ImagePrep prep = entry_of(kind).prep;
  if (options.crop_mode) prep.mode = *options.crop_mode;
  if (options.crop_pct > 0) prep.crop_pct = options.crop_pct;
  validate_image_prep(prep);
  return prep;
}

std::string DatasetInfo::id() const {
  if (kind == DatasetKind::kCifar100 && labels == LabelSet::kCoarse) return "cifar100-coarse";
  return to_string(kind);
}

namespace {
ImageSplit read_native(const DatasetOptions& options, DatasetKind kind, Split split) {
  switch (kind) {
    case DatasetKind::kCifar10:
      return read_cifar10(options.dir, split);
    case DatasetKind::kCifar100:
      return read_cifar100(options.dir, split, options.labels);
    case DatasetKind::kFolder: {
      ImageFolderOptions folder = options.folder;
      if (options.image_size > 0) folder.image_side = options.image_size;
      folder.prep = dataset_prep(options, kind);
      const bool whole =
          split == Split::kTrain && options.resized_crops > 0 && entry_of(kind).resized_crops;
      if (whole) folder.whole_side = kWholeScale * folder.image_side;
      ImageSplit data = read_image_folder(options.dir, split, folder);
      if (data.whole) data.whole->min_scale = options.resized_crops;
      return data;
    }
  }
  throw std::logic_error("unknown data set kind");
}
}  // namespace

ImageSplit read_dataset_split(const DatasetOptions& options, DatasetKind kind, Split split) {
  if (split == Split::kVal && kind != DatasetKind::kFolder) {
    throw UsageError(fmt::format(
        "{} ({}) has no validation split of its own, only training and test images (a run holds "
        "validation images out of the training split with cifar-train --val-split N)",
        options.dir.string(), to_string(kind)));
  }
  ImageSplit data = read_native(options, kind, split);
  if (kind == DatasetKind::kFolder) return data;  // prepared as read
  const int64_t side = options.image_size > 0 ? options.image_size : data.images.size(3);
  data.images = prepare_split(data.images, side, dataset_prep(options, kind));
  return data;
}

Normalization measured_normalization(const ImageSplit& split) {
  Normalization n;
  const int64_t images = split.size();
  if (images == 0) return n;
  // Sums per channel over chunks, so that no double copy of the split is made.
  auto sum = torch::zeros({3}, torch::kDouble);
  auto squares = torch::zeros({3}, torch::kDouble);
  constexpr int64_t kChunk = 1024;
  for (int64_t start = 0; start < images; start += kChunk) {
    const auto x = split.images.narrow(0, start, std::min(kChunk, images - start))
                       .to(torch::kDouble)
                       .div_(255);
    sum += x.sum({0, 2, 3});
    squares += x.square().sum({0, 2, 3});
  }
  const double count = static_cast<double>(images * split.images.size(2) * split.images.size(3));
  auto round4 = [](double v) { return std::round(v * 10000) / 10000; };
  for (int64_t c = 0; c < 3; ++c) {
    const double mean = sum[c].item<double>() / count;
    const double var = std::max(0.0, squares[c].item<double>() / count - mean * mean);
    n.mean[static_cast<size_t>(c)] = round4(mean);
    n.std[static_cast<size_t>(c)] = std::max(0.001, round4(std::sqrt(var)));
  }
  return n;
}

DatasetInfo describe_dataset(DatasetKind kind, LabelSet labels, const ImageSplit& train,
                             const ImagePrep& prep) {
  DatasetInfo info;
  info.kind = kind;
  info.labels = labels;
  info.class_names = train.class_names;
  info.image = ImageShape{.channels = train.images.size(1), .side = train.model_side()};
  info.prep = prep;
  if (kind == DatasetKind::kCifar100) info.normalization = cifar100_normalization();
  if (kind == DatasetKind::kFolder) info.normalization = measured_normalization(train);
  return info;  // CIFAR-10: Normalization's defaults
}

namespace {
// "10 classes (airplane, automobile, bird, ...)".
std::string some_classes(const std::vector<std::string>& names) {
  constexpr size_t kShown = 4;
  std::vector<std::string> shown(
      names.begin(), names.begin() + static_cast<std::ptrdiff_t>(std::min(names.size(), kShown)));
  return fmt::format("{} classes ({}{})", names.size(), fmt::join(shown, ", "),
                     names.size() > kShown ? ", ..." : "");
}
}  // namespace

void check_same_classes(const std::vector<std::string>& model, const std::string& model_source,
                        const std::vector<std::string>& data, const std::string& data_source) {
  if (model == data) return;
  size_t i = 0;
  while (i < model.size() && i < data.size() && model[i] == data[i]) ++i;
  const std::string difference =
      i < model.size() && i < data.size()
          ? fmt::format("class {} is '{}' in one and '{}' in the other", i, model[i], data[i])
          : fmt::format("one has {} classes more", std::max(model.size(), data.size()) - i);
  throw std::runtime_error(fmt::format(
      "{} was trained on {}, but {} holds {}: {}; use the data it was trained on (--data, "
      "--dataset, --labels)",
      model_source, some_classes(model), data_source, some_classes(data), difference));
}

std::vector<std::string> ignored_data_options(const DatasetOptions& options, DatasetKind kind) {
  std::vector<std::string> out;
  if (options.labels != LabelSet::kFine && kind != DatasetKind::kCifar100) {
    out.push_back(fmt::format(
        "--labels {} does nothing here: only CIFAR-100 has two label sets, and {} is {}",
        to_string(options.labels), options.dir.string(), to_string(kind)));
  }
  if (options.folder.skip_bad_images && kind != DatasetKind::kFolder) {
    out.push_back(fmt::format(
        "--skip-bad-images does nothing here: only image folders hold image files, and {} is {}",
        options.dir.string(), to_string(kind)));
  }
  return out;
}

std::vector<fs::path> dataset_files(const fs::path& dir) {
  std::vector<fs::path> files;
  for (const Split split : {Split::kTrain, Split::kTest}) {
    for (const auto& name : batch_file_names(split)) files.push_back(dir / name);
  }
  files.push_back(dir / "batches.meta.txt");
  for (const auto& name : cifar100_file_names()) files.push_back(dir / name);
  return files;
}

std::vector<NamedFile> dataset_output_files(const fs::path& dir, std::optional<DatasetKind> kind) {
  const bool folder = kind ? *kind == DatasetKind::kFolder : has_image_folder_layout(dir);
  if (!folder) return {};
  std::vector<NamedFile> files;
  for (const Split split : {Split::kTrain, Split::kVal, Split::kTest}) {
    files.push_back({fmt::format("the image cache of --data's {}/", split_folder_name(split)),
                     image_cache_path(dir, split, {})});
  }
  return files;
}

}  // namespace cifar
