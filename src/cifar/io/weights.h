// weights.h: a model built from a weights file (.safetensors, .pt, .pth, e.g.
// saved in Python), to evaluate, predict with, export or train on from.
//
// Weights are not a checkpoint: no optimiser state, no epoch, nothing to
// resume. Which model, stem, normalisation and class names they are for comes
// from WeightsOptions, else the file's metadata, else the defaults; the
// tensors must then fit that model exactly.
//
// The pieces, each in its own header (included here for existing includers):
//   weights_file.h         the formats, by extension
//   weights_metadata.h     what a .safetensors file's __metadata__ says
//   weights_export.h       a model written as a weights file
//   model/state_dict.h     Python's tensor names, strict matching
#pragma once

#include <filesystem>
#include <optional>
#include <string>
#include <vector>

#include "cifar/core/types.h"
#include "cifar/io/checkpoint.h"
#include "cifar/io/weights_export.h"
#include "cifar/io/weights_file.h"
#include "cifar/io/weights_images.h"
#include "cifar/io/weights_metadata.h"
#include "cifar/model/models.h"
#include "cifar/model/state_dict.h"

namespace cifar {

// What to build for a weights file. Unset fields come from the file's
// metadata, else the defaults: stem cifar, the training normalisation, and
// as many outputs as the file's output layer has (named as CIFAR-10's when
// there are ten, else class_0, class_1, ...); the model is never guessed (a
// file without metadata needs `model`). The values are the command line's,
// already checked (config/, resolve/).
struct WeightsOptions {
  std::optional<std::string> model;  // a name make_model knows
  std::optional<ResNetStem> stem;
  std::optional<Normalization> normalization;  // in channel_problem's range
  // The outputs the caller needs; unset: any the file has.
  std::optional<int64_t> num_classes;
  // The images the model takes, where the command line says (weights_images.h).
  ImageOptions images;
};

// A weights file read whole: its tensors and what it says of them (a weights
// file's metadata, or the header of one of this tool's checkpoints read as
// weights: it says the model, normalisation, classes).
struct WeightsContents {
  TensorMap tensors;
  WeightsMetadata meta;
  std::string says = "the file's metadata";          // for the log and errors
  std::string classes_field = "metadata 'classes'";  // where its class list is
  std::optional<int64_t> tta{};  // a cifar-train checkpoint's level; weights files record none
};

// A model built from a weights file, and what the file (or the options) said
// about it.
struct ImportedWeights {
  Classifier model;                      // on the CPU, in eval mode
  std::string model_name;                // a name make_model knows
  ResNetStem stem = ResNetStem::kCifar;  // meaningful for ResNets only
  Normalization normalization;           // what the model's inputs are normalised with
  std::vector<std::string> class_names;  // the model's outputs, in order
  bool class_names_known = true;         // false: the file names none (see WeightsOptions)
  std::string dataset = "cifar10";       // what the file says it was trained on
  ImageShape image{.channels = 3, .image_size = kCifarImageSize};  // what the file says it takes
  ImagePrep prep;                    // and how images are made that size
  std::optional<int64_t> tta{};      // WeightsContents::tta
  bool image_size_recorded = false;  // the file names image.image_size (cifar-train leaves 32 out)
  std::string normalization_note;    // where the normalisation came from, for the log
  bool normalization_known = true;   // false: the default, assumed (the file does not say)
  std::string image_note;            // where the image size and preparation came from
};

// Reading weights is three steps, so that what the user must fix is told
// apart from a broken file: each problem function returns the refusal's text
// ("" when there is none), which resolve/model_input.h's resolve_weights
// refuses (the tools' exit code 2).
//
// Why `path` cannot be read with `options` ("" when it can): its extension
// names no format (weights_format_problem), unless it is one of this tool's
// checkpoints; or it is a .pt/.pth file (no metadata) and options.model is
// unset (the file's size limits follow the model). A missing or unreadable
// file is no such text: std::runtime_error (file_io.h's check_readable_file,
// exit code 1).
std::string weights_path_problem(const std::filesystem::path& path, const WeightsOptions& options);
// Reads it: the tensors (every layout read_weights undoes) and what the file
// says of them. Precondition: weights_path_problem(path, options) is ""
// (std::invalid_argument otherwise). std::runtime_error, naming the file, for
// a file that cannot be read or malformed metadata.
WeightsContents read_weights_contents(const std::filesystem::path& path,
                                      const WeightsOptions& options);
// Why no model can be built from `contents` with `options` ("" when one can):
// neither options.model nor the file says which model, the file names a
// model this build does not know, or options.images.image_size is a size that
// model does not take.
std::string weights_contents_problem(const WeightsContents& contents, const WeightsOptions& options,
                                     const std::filesystem::path& path);
// Builds the model and fills it (strict). Precondition:
// weights_contents_problem is "" and options.normalization is in range
// (std::invalid_argument otherwise). std::runtime_error, naming the file, for
// tensors that do not fit, a class list that does not fit the model's
// outputs or options.num_classes.
ImportedWeights import_weights(WeightsContents contents, const WeightsOptions& options,
                               const std::filesystem::path& path);
// The three in a row, for options known to fit the file (tests, code that
// made the file): a problem is std::invalid_argument with its text.
ImportedWeights import_weights(const std::filesystem::path& path, const WeightsOptions& options);

// The description code written for checkpoints takes (evaluation,
// prediction, export): model, stem, classes, normalisation, this LibTorch;
// epoch 0, accuracies -1 (never measured).
CheckpointInfo weights_info(const ImportedWeights& weights);

// --- Transitional: the tools read through import_weights and weights_info;
// tests/io/test_weights.cpp still reads through these two. ------------------
// The weights with a CheckpointInfo (weights_info), and the note.
struct LoadedWeights {
  CheckpointInfo info;
  Classifier model;
  std::string normalization_note;
};
LoadedWeights load_weights(const std::filesystem::path& path, const WeightsOptions& options);
// The weights as a LoadedCheckpoint (no optimizer state, bytes empty).
LoadedCheckpoint weights_as_checkpoint(LoadedWeights weights);

}  // namespace cifar
