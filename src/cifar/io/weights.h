// weights.h: a model's weights as files other tools read and write.
//
// Formats, chosen by the file's extension:
//   .safetensors   the Hugging Face format (safetensors.h), with __metadata__
//                  saying model, stem, mean, std, classes and the tool version
//   .pt / .pth     what Python's torch.save writes and torch.load reads
//                  (torch_pickle.h): a dict name -> tensor; on reading also
//                  torch.save(model.state_dict()) and dicts holding the state
//                  dict under one of state_dict_keys()
// Tensor names are the ones Python uses (conv1.weight, bn1.running_mean,
// layer2.0.downsample.0.weight, bn1.num_batches_tracked, ...). Applying a file
// to a model is strict: every missing, unexpected or wrongly shaped tensor is
// listed by name in one error.
#pragma once

#include <filesystem>
#include <optional>
#include <string>
#include <vector>

#include "cifar/data/data.h"
#include "cifar/formats/safetensors.h"
#include "cifar/io/checkpoint.h"
#include "cifar/model/models.h"

namespace cifar {

// A weights file read by extension: its tensors and (safetensors only) its
// metadata. Throws UsageError for an unknown extension.
struct WeightsFile {
  TensorMap tensors;
  StringMap metadata;
};
WeightsFile read_weights(const std::filesystem::path& path);

// The model's parameters and buffers under their Python names.
TensorMap model_state_dict(ClassifierImpl& model);

// Copies `tensors` into `model` (strict). Throws std::runtime_error naming
// `source` and listing every missing, unexpected and wrongly shaped tensor; a
// torchvision ImageNet ResNet-18 (7x7 stem, 1000 classes) is named as such.
// A "module." or "_orig_mod." prefix on every name (DataParallel,
// torch.compile) is removed first.
void apply_weights(ClassifierImpl& model, const TensorMap& tensors, const std::string& model_name,
                   const std::string& source);

// How to build a model for a weights file. Unset fields come from the file's
// metadata, else the defaults: model "net" is NOT assumed (a file without
// metadata needs `model`), stem cifar, the training normalisation, the ten
// CIFAR-10 classes.
struct WeightsOptions {
  std::optional<std::string> model;
  std::optional<std::string> stem;
  std::optional<Normalization> normalization;
};

// The weights loaded into a fresh CPU model, with the same info a checkpoint
// has (epoch and accuracies unknown: 0 and -1), and one line saying where the
// normalisation came from, for the log.
struct LoadedWeights {
  CheckpointInfo info;
  Classifier model;
  std::string normalization_note;
};
LoadedWeights load_weights(const std::filesystem::path& path, const WeightsOptions& options);

// --mean and --std as typed ("0.49,0.48,0.45"; commas or spaces): none when
// both are empty. Throws UsageError naming the flag and the value when only
// one is given, a value is not three finite numbers, or a std is not > 0.
std::optional<Normalization> normalization_from_flags(const std::string& mean,
                                                      const std::string& std);

// The same as a LoadedCheckpoint (no optimizer state, bytes empty), for code
// that evaluates checkpoints.
LoadedCheckpoint weights_as_checkpoint(LoadedWeights weights);

// The safetensors __metadata__ for a model: model, stem, mean, std, classes
// (JSON arrays as strings), cifar_train_version, format "pt".
StringMap weights_metadata(const CheckpointInfo& info);

// Writes the model's weights to `path` in the format its extension names
// (.safetensors, .pt, .pth); UsageError for any other extension.
void export_weights(const CheckpointInfo& info, ClassifierImpl& model,
                    const std::filesystem::path& path);
void export_weights(const LoadedCheckpoint& checkpoint, const std::filesystem::path& path);

// For the trainer, at the end of training: writes run_dir/model.safetensors
// (returns its path).
std::filesystem::path write_run_weights(const std::filesystem::path& run_dir,
                                        const CheckpointInfo& info, ClassifierImpl& model);

}  // namespace cifar
