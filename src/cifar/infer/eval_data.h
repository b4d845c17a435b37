// eval_data.h: the data cifar-eval evaluates on: the split --split names of
// the data set --data holds (an image folder without test/: its val/), or a
// plain folder of class folders read whole, labelled by the model's classes;
// the model's classes checked against it.
#pragma once

#include <filesystem>
#include <optional>
#include <string>

#include "cifar/data/dataset.h"
#include "cifar/data/image_split.h"
#include "cifar/io/checkpoint.h"

namespace cifar {

// The images a run held out of its training split for validation
// (cifar-train --val-split), from its checkpoint's settings: what --split
// val evaluates on a data set without a validation split of its own.
struct HeldOutImages {
  int64_t images = 0;          // --val-split N
  uint64_t seed = 0;           // --seed: which N
  int64_t train_images = -1;   // the images it trained on (-1: unknown)
  bool train_limited = false;  // --train-limit cut them (then at most the rest)
  bool skip_bad_images = false;
};

// What cifar-eval evaluates on, as resolve/inference.h's resolve_eval
// resolved it from the options.
struct EvalData {
  std::filesystem::path dir;                // --data
  std::optional<DatasetKind> kind{};        // --dataset, else detected (unset: read whole)
  Split split = Split::kTest;               // --split
  bool whole = false;                       // a plain folder of class folders (evaluated_whole)
  LabelSet labels = LabelSet::kFine;        // CIFAR-100's: --labels, else the model's
  std::optional<LabelSet> given_labels{};   // --labels as given, for the ignored-options note
  bool skip_bad_images = false;             // image folders: skip unreadable files, naming them
  std::filesystem::path spare_cache_dir{};  // ImageFolderOptions::spare_cache_dir
  std::string model_file;  // "checkpoint FILE" or "weights file FILE", for messages
  std::optional<HeldOutImages> held_out{};  // --split val read from the training split
};

// Whether --data is a plain folder of class folders (DIR/<class>/...), read
// whole, not a data set with splits: --dataset folder or auto, and (auto) no
// file of a binary data set beside its folders. Such a folder takes no
// --split (resolve/inference.h refuses one).
bool evaluated_whole(const std::filesystem::path& dir, std::optional<DatasetKind> kind);

// The split of `data` (or, for a plain folder of class folders, all of it),
// read at the model's image size, and the model's classes checked against it:
// the same names in the same order (a weights file that names none takes the
// data's, when it has as many outputs; `checkpoint`'s class names are then
// set). With `held_out`, --split val is the images the run held out, chosen
// again from the training split, which must list as many images as the
// run's did (else an error saying the folder changed). Precondition: no
// split other than test for a folder evaluated whole (std::invalid_argument).
ImageSplit read_test_data(const EvalData& data, LoadedCheckpoint& checkpoint);

}  // namespace cifar
