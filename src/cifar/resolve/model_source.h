// model_source.h: where the model of a training run comes from.
//
// Three sources, exactly one per run:
//   fresh        a new network (--model, else the recipe's), seeded by --seed
//   resume       a cifar-train checkpoint (--resume): model, optimiser state,
//                position in the run; it fixes the model and normalisation
//   init weights a weights file (--init-weights, e.g. saved in Python): the
//                model and its normalisation, training starts at epoch 1;
//                --pretrained names the model's ImageNet weights (weights_source.h)
// Resuming and init weights are different things: only a resume restores the
// optimiser and the position.
#pragma once

#include <filesystem>
#include <optional>
#include <string>
#include <vector>

#include "cifar/config/config.h"
#include "cifar/core/types.h"
#include "cifar/data/dataset.h"
#include "cifar/io/checkpoint.h"
#include "cifar/model/models.h"

namespace cifar {

struct ModelSource {
  std::string model_name;                // net, resnet18, airbench94
  ResNetStem stem = ResNetStem::kCifar;  // ResNet only
  Normalization normalization;           // of the images the model expects
  ImageShape image{};                    // of those images: the data's (fit_to_data)
  ImagePrep prep{};                      // how they were made so: the data's (fit_to_data)
  // The model's classes: a checkpoint's or weights file's (empty for a fresh
  // start, which takes the data's: fit_to_data); false for a weights file
  // that names none.
  std::vector<std::string> class_names;
  bool class_names_known = true;
  // The weights file started from ("--init-weights FILE", "--pretrained
  // (FILE)"), for the log and errors; empty for a fresh start or a resume.
  std::string weights_named_by = {};
  // The SHA-256 of the --init-weights file (hex), recorded in config.toml.
  std::string weights_sha256 = {};
  // The side the weights were trained at (--pretrained's): --image-size's
  // default; 0: the data's.
  int64_t weights_image_size = 0;
  Classifier model;                         // null for a fresh start: built later, seeded
  std::optional<LoadedCheckpoint> resumed;  // set by --resume only
  // The settings the resumed run saved in its checkpoint, read once
  // (config.h's from_toml); unset for a checkpoint that saved none.
  std::optional<TrainConfig> resumed_settings;
  bool fresh() const { return !model; }
};

// Loads the checkpoint or weights the settings name (checking them against
// --model, --stem and --epochs), or describes a fresh start with
// `default_network`; then checks the settings that depend on the model on
// the model resolved (--resolution-schedule needs one that takes any image
// size, --image-size one that takes that size), so that a model named by a
// file is held to what --model is.
// `pretrained_dirs`: where --pretrained looks (weights_source.h).
ModelSource model_source(const TrainConfig& config, const std::string& default_network,
                         const std::vector<std::filesystem::path>& pretrained_dirs);

// The data decides what a fresh model is (its classes, normalisation and
// image size); weights (--init-weights) naming other classes than the data's
// get a new head for them; a resumed model must have the data's classes,
// same names, same order (else std::runtime_error naming both), and its
// image size; every model must take the data's image size (else
// UsageError). `data_source` names the data in errors; `main_rank` logs.
void fit_to_data(ModelSource& source, const DatasetInfo& data, const TrainConfig& config,
                 const std::string& data_source, bool main_rank = true);

// The fresh network, on the CPU, initialised from --seed, with an output per class.
Classifier build_fresh(const ModelSource& source);

}  // namespace cifar
