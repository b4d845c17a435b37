// dataset.h: what a data set is to the tool: its kind, class names, image
// geometry and normalisation, read from the folder --data names.
//
// Three kinds:
//   cifar10   the CIFAR-10 binary folder (data_batch_1.bin ... test_batch.bin,
//             batches.meta.txt), 10 classes (data.h)
//   cifar100  the CIFAR-100 binary folder (train.bin, test.bin, the label
//             name files), 100 fine or 20 coarse classes (cifar100.h)
//   folder    images in DIR/train/<class>/ (and val/<class>/, test/<class>/), as
//             torchvision's ImageFolder reads them (image_folder.h)
// --dataset names the kind; without it (auto) the kind is detected from what
// the folder holds, and a folder that holds none of them, or more than one,
// is refused saying what it holds and what each kind needs. Every kind gives
// splits of (N, 3, S, S) uint8 images as DatasetOptions::image says (resolved
// by resolve/): S is its image_size, each image prepared as its prep says
// (core/image_prep.h: by default the kind's entry's, CIFAR's whole, an image
// folder's torchvision centre crop), or, for an augmenting run's image
// folder, the training split kept whole for random resized crops (crops.h). The class names and the
// count come from the data, and the normalisation is the data set's: CIFAR-10's and CIFAR-100's
// published values, an image folder's measured on its training images.
#pragma once

#include <cstdint>
#include <filesystem>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "cifar/core/file_identity.h"
#include "cifar/core/image_prep.h"
#include "cifar/core/types.h"
#include "cifar/data/cifar100.h"
#include "cifar/data/image_folder.h"
#include "cifar/data/image_split.h"

namespace cifar {

// A kind of data set: the name of its entry in dataset_kinds() ("cifar10",
// "cifar100", "folder"), which says what it can do (dataset_entry).
struct DatasetKind {
  std::string name;
  bool operator==(const DatasetKind&) const = default;
};
std::string to_string(DatasetKind kind);
// --dataset as config/ checked it: "auto" (unset), or a kind's name
// (std::invalid_argument for other text, which config/ refuses first).
std::optional<DatasetKind> dataset_request(const std::string& text);

struct DatasetOptions {
  std::filesystem::path dir;
  std::optional<DatasetKind> kind{};  // unset (--dataset auto): detected from dir
  LabelSet labels = LabelSet::kFine;  // CIFAR-100's label set (--labels)
  ImageFolderOptions folder{};        // image folders: cache, bad images, no test/
  // The model's images, as resolve/ decided them from the options and this
  // kind's entry (its own preparation, random resized crops or none).
  ImageSpec image{};
  // A data set's binary files (not an image folder): only the first N images
  // of the split are prepared (0: all), as --train-limit and --test-limit
  // keep them; a larger --image-size then resizes N images, not 50,000.
  int64_t first = 0;
};

// The kind `dir` holds: cifar10 when it has data_batch_*.bin, test_batch.bin
// or batches.meta.txt, cifar100 when it has train.bin, test.bin or a label
// name file, folder when it has a train/ folder. Throws std::runtime_error
// naming what it found and what each kind needs when none or more than one
// match (and the folder's own problem when it cannot be read).
DatasetKind detect_dataset(const std::filesystem::path& dir);

// options.kind, else detect_dataset(options.dir).
DatasetKind dataset_kind(const DatasetOptions& options);

// The kinds --dataset names, a table (dataset_kinds.cpp): each kind's name
// in options, checkpoints and weights files, and everything that differs
// between kinds, so that no code outside the table asks which kind it is.
// The first is the default of files that name none (written before other
// kinds existed).
struct DatasetKindEntry {
  std::string name;            // the kind (DatasetKind::name), --dataset
  std::string needs;           // what a folder of this kind holds, for errors
  ImagePrep prep;              // how its images become the model's (core/image_prep.h)
  bool resized_crops = false;  // augmented by random resized crops (crops.h), not translations
  bool label_sets = false;     // fine and coarse labels (--labels)
  // A folder of image files: decoded one by one (--skip-bad-images), cached,
  // listed class by class, prepared as read, with a val/ split of its own.
  bool image_files = false;
  // Its training images' count and median shorter side, as the listing and
  // their headers give them (image folders: photos of any size); null: the
  // kind's images have one side.
  std::pair<int64_t, int64_t> (*photo_sizes)(const std::filesystem::path& dir) = nullptr;
  // The file (or folder, "train/") of `dir` that shows it holds this kind; "" if none.
  std::string (*detect)(const std::filesystem::path& dir) = nullptr;
  // One split as stored, (N, 3, S, S) uint8 (an image-files kind: prepared as read).
  ImageSplit (*read)(const DatasetOptions& options, Split split) = nullptr;
  // Its normalisation: published values, or measured on the training split.
  Normalization (*normalization)(const ImageSplit& train) = nullptr;
  // The data files it reads in `dir`, whether they exist or not.
  std::vector<std::filesystem::path> (*files)(const std::filesystem::path& dir) = nullptr;
  // The files reading it may write in `dir` (an image folder's caches); null: none.
  std::vector<NamedFile> (*outputs)(const std::filesystem::path& dir) = nullptr;
};
const std::vector<DatasetKindEntry>& dataset_kinds();
const DatasetKindEntry& dataset_entry(DatasetKind kind);

// What a model trained on a data set keeps of it (checkpoints, weights).
struct DatasetInfo {
  DatasetKind kind{"cifar10"};
  LabelSet labels = LabelSet::kFine;  // meaningful for cifar100
  std::vector<std::string> class_names;
  ImageShape image;  // of the images the model takes (the training split's)
  ImagePrep prep;    // how an image of any shape is made one (core/image_prep.h)
  Normalization normalization;

  int64_t num_classes() const { return static_cast<int64_t>(class_names.size()); }
  // "cifar10", "cifar100", "cifar100-coarse" or "folder": what checkpoints
  // and weights files record.
  std::string id() const;
};

// The label set a recorded id (DatasetInfo::id) names: fine or coarse for a
// kind with label sets ("cifar100", "cifar100-coarse"); none for the others
// and for ids this version does not know.
std::optional<LabelSet> label_set_of_id(const std::string& id);

// "DIR (cifar10) has no validation split of its own, ...": what a data set
// whose kind holds no val/ (DatasetKindEntry::image_files false) says to a
// --split val (resolve/inference.cpp refuses it with this).
std::string no_val_split(const std::filesystem::path& dir, const DatasetKindEntry& entry);

// One split of the data set of kind `kind` in options.dir; std::invalid_argument
// (no_val_split) for Split::kVal of a kind without one.
ImageSplit read_dataset_split(const DatasetOptions& options, DatasetKind kind, Split split);

// The data set, described from its (whole) training split, whose images
// were prepared as `prep` says.
DatasetInfo describe_dataset(DatasetKind kind, LabelSet labels, const ImageSplit& train,
                             const ImagePrep& prep);

// The per-channel mean and std of images scaled to [0, 1], rounded to 4
// decimals (std at least 0.001).
Normalization measured_normalization(const ImageSplit& split);

// Throws std::runtime_error unless a model's classes (`model`, from
// `model_source`: "checkpoint net.pt") are the data's (`data`, from
// `data_source`), the same names in the same order; the message names both
// lists (their counts and first names) and the first difference.
void check_same_classes(const std::vector<std::string>& model, const std::string& model_source,
                        const std::vector<std::string>& data, const std::string& data_source);

// The options of `options` that do nothing for data of kind `kind`, each as
// one warning that names it: --labels other than fine (only CIFAR-100 has
// two label sets), --skip-bad-images (only image folders decode files).
// cifar-train and cifar-eval say each once.
std::vector<std::string> ignored_data_options(const DatasetOptions& options, DatasetKind kind);

// The data files of every binary kind, in `dir` (whether they exist or
// not): the inputs no output may replace.
std::vector<std::filesystem::path> dataset_files(const std::filesystem::path& dir);

// The files reading the data in `dir` may write, by role: an image folder's
// cache files (image_cache.h), when `kind` (unset: detected) is an image
// folder; none for the binary kinds. Outputs, to be checked against the
// tool's inputs (core/file_identity.h) before anything is read.
std::vector<NamedFile> dataset_output_files(const std::filesystem::path& dir,
                                            std::optional<DatasetKind> kind);

}  // namespace cifar
