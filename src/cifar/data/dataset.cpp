// dataset.cpp: the kinds of data set, detected and read (dataset.h).
#include "cifar/data/dataset.h"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <cmath>
#include <stdexcept>

#include "cifar/core/file_io.h"
#include "cifar/core/names.h"
#include "cifar/core/registry.h"
#include "cifar/data/image_folder.h"
#include "cifar/data/image_walk.h"

namespace cifar {
namespace fs = std::filesystem;

namespace {

constexpr const char* kFolderHint =
    "point --data (or the CIFAR10_DIR environment variable) at a folder of your images "
    "(train/<class>/*.jpg, with val/ and/or test/ beside it) or of a data set's files: get "
    "CIFAR-10 with scripts/download_cifar10.sh (CIFAR-100: scripts/download_cifar100.sh)";

// "a, b, c and 4 more" of the folder's entries, or "nothing".
std::string listing(const fs::path& dir) {
  std::vector<std::string> names;
  std::error_code ec;
  for (fs::directory_iterator it(dir, ec), end; !ec && it != end; it.increment(ec)) {
    names.push_back(shown_name(it->path().filename()) + (it->is_directory(ec) ? "/" : ""));
  }
  if (names.empty()) return "nothing";
  std::sort(names.begin(), names.end());
  return first_names(names, 8);
}

// "cifar10 needs ...; cifar100 needs ...; folder needs ...".
std::string what_each_kind_needs() {
  std::vector<std::string> parts;
  for (const auto& e : dataset_kinds()) parts.push_back(e.name + " needs " + e.needs);
  return fmt::format("{}", fmt::join(parts, "; "));
}

// For a folder of images rather than of class folders (one class's folder,
// say): where the labels come from, and the tool for unlabelled images.
std::string images_hint(const fs::path& dir) {
  std::error_code ec;
  for (fs::directory_iterator it(dir, ec), end; !ec && it != end; it.increment(ec)) {
    if (has_image_extension(it->path()) && it->is_regular_file(ec)) {
      return ". It holds images themselves, where a data set's images are in class folders "
             "(<class>/*.jpg) whose names are their labels: give a folder that holds "
             "train/<class>/ (cifar-eval also takes a folder of <class>/ folders), or label "
             "images with cifar-predict";
    }
  }
  return "";
}

// For a split's folder given as the data (DIR/train): the data set it is
// part of.
std::string split_folder_hint(const fs::path& dir) {
  const fs::path whole = absolute_path(dir).lexically_normal();
  const std::string name = (whole.has_filename() ? whole : whole.parent_path()).filename();
  const fs::path parent = (whole.has_filename() ? whole : whole.parent_path()).parent_path();
  const bool split = name == "train" || name == "test" ||
                     std::ranges::find(kValFolderNames, name) != kValFolderNames.end();
  if (!split || parent.empty()) return "";
  for (const auto& e : dataset_kinds()) {
    if (!e.detect(parent).empty()) {
      return fmt::format(". It is the {} split of the data set in {}: give --data {}", name,
                         parent.string(), shell_word(parent.string()));
    }
  }
  return "";
}

}  // namespace

std::optional<DatasetKind> dataset_request(const std::string& text) {
  if (text == "auto") return std::nullopt;
  if (const DatasetKindEntry* entry = find_entry(dataset_kinds(), text))
    return DatasetKind{entry->name};
  throw std::invalid_argument(fmt::format("--dataset '{}' is not a data set kind", text));
}

const DatasetKindEntry& dataset_entry(DatasetKind kind) {
  const DatasetKindEntry* entry = find_entry(dataset_kinds(), kind.name);
  if (entry == nullptr) throw std::logic_error("data set kind '" + kind.name + "' has no entry");
  return *entry;
}

std::string to_string(DatasetKind kind) {
  return dataset_entry(kind).name;
}

DatasetKind detect_dataset(const fs::path& dir) {
  check_readable_directory(dir, "data folder", kFolderHint);
  std::vector<std::pair<DatasetKind, std::string>> found;
  for (const auto& e : dataset_kinds()) {
    if (const std::string f = e.detect(dir); !f.empty()) found.emplace_back(DatasetKind{e.name}, f);
  }
  if (found.size() == 1) return found.front().first;
  if (found.empty()) {
    throw std::runtime_error(fmt::format(
        "{} holds no data set cifar-train knows (it holds {}{}): {}; or name the kind with "
        "--dataset{}",
        dir.string(), listing(dir), split_case_hint(dir), what_each_kind_needs(),
        images_hint(dir) + split_folder_hint(dir)));
  }
  std::vector<std::string> kinds;
  for (const auto& [kind, file] : found)
    kinds.push_back(fmt::format("{} ({})", to_string(kind), file));
  throw std::runtime_error(fmt::format(
      "{} holds files of more than one data set: {}; keep one data set per folder, or choose "
      "one with --dataset {} ({})",
      dir.string(), fmt::join(kinds, " and "), fmt::join(entry_names(dataset_kinds()), "|"),
      what_each_kind_needs()));
}

DatasetKind dataset_kind(const DatasetOptions& options) {
  return options.kind ? *options.kind : detect_dataset(options.dir);
}

std::string DatasetInfo::id() const {
  const DatasetKindEntry& entry = dataset_entry(kind);
  return entry.label_sets && labels == LabelSet::kCoarse ? entry.name + "-coarse" : entry.name;
}

std::optional<LabelSet> label_set_of_id(const std::string& id) {
  for (const DatasetKindEntry& entry : dataset_kinds()) {
    if (!entry.label_sets) continue;
    for (const LabelSet labels : {LabelSet::kFine, LabelSet::kCoarse}) {
      DatasetInfo info;
      info.kind = DatasetKind{entry.name};
      info.labels = labels;
      if (info.id() == id) return labels;
    }
  }
  return std::nullopt;
}

std::string no_val_split(const std::filesystem::path& dir, const DatasetKindEntry& entry) {
  return fmt::format(
      "{} ({}) has no validation split of its own, only training and test images (a run holds "
      "validation images out of the training split with cifar-train --val-split N)",
      dir.string(), entry.name);
}

ImageSplit read_dataset_split(const DatasetOptions& options, DatasetKind kind, Split split) {
  const DatasetKindEntry& entry = dataset_entry(kind);
  if (split == Split::kVal && !entry.image_files) {  // resolve/inference.cpp refuses it
    throw std::invalid_argument(no_val_split(options.dir, entry));
  }
  ImageSplit data = entry.read(options, split);
  if (entry.image_files) return data;  // prepared as read
  if (options.first > 0 && options.first < data.size()) {
    data.images = data.images.narrow(0, 0, options.first);
    data.labels = data.labels.narrow(0, 0, options.first);
  }
  data.images = prepare_split(data.images, options.image.image_size, options.image.prep);
  return data;
}

Normalization measured_normalization(const ImageSplit& split) {
  Normalization n;
  const int64_t images = split.size();
  if (images == 0) return n;
  // Exact integer sums per channel over small chunks: no copy of the split
  // wider than a chunk's (64 images of 448 px: 154 MB as int32, twice that
  // as the int64 the sums may make).
  auto sum = torch::zeros({3}, torch::kLong);
  auto squares = torch::zeros({3}, torch::kLong);
  constexpr int64_t kChunk = 64;
  for (int64_t start = 0; start < images; start += kChunk) {
    const auto x = split.images.narrow(0, start, std::min(kChunk, images - start));  // uint8
    sum += x.sum({0, 2, 3}, /*keepdim=*/false, torch::kLong);
    auto wide = x.to(torch::kInt);
    squares += wide.mul_(wide).sum({0, 2, 3}, /*keepdim=*/false, torch::kLong);
  }
  sum = sum.to(torch::kDouble).div_(255);
  squares = squares.to(torch::kDouble).div_(255.0 * 255.0);
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
  info.image = ImageShape{.channels = train.images.size(1), .image_size = train.image_size()};
  info.prep = prep;
  info.normalization = dataset_entry(kind).normalization(train);
  return info;
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
  const DatasetKindEntry& entry = dataset_entry(kind);
  if (options.labels != LabelSet::kFine && !entry.label_sets) {
    out.push_back(fmt::format(
        "--labels {} does nothing here: only CIFAR-100 has two label sets, and {} is {}",
        to_string(options.labels), options.dir.string(), to_string(kind)));
  }
  if (options.folder.skip_bad_images && !entry.image_files) {
    out.push_back(fmt::format(
        "--skip-bad-images does nothing here: only image folders hold image files, and {} is {}",
        options.dir.string(), to_string(kind)));
  }
  return out;
}

std::vector<fs::path> dataset_files(const fs::path& dir) {
  std::vector<fs::path> files;
  for (const auto& e : dataset_kinds()) {
    for (fs::path& file : e.files(dir)) files.push_back(std::move(file));
  }
  return files;
}

std::vector<NamedFile> dataset_output_files(const fs::path& dir, std::optional<DatasetKind> kind) {
  std::vector<NamedFile> files;
  for (const auto& e : dataset_kinds()) {
    if (e.outputs == nullptr || (kind ? kind->name != e.name : e.detect(dir).empty())) continue;
    for (NamedFile& file : e.outputs(dir)) files.push_back(std::move(file));
  }
  return files;
}

}  // namespace cifar
