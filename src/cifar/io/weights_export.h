// weights_export.h: a model written as a weights file for other tools
// (Python's torch.load, safetensors), and the copy a training run leaves in
// its run folder.
//
// The file's format is the one its extension names (weights_file.h); a
// .safetensors file carries the model's description as metadata
// (weights_metadata.h), so that cifar-eval --weights needs no other flag.
#pragma once

#include <filesystem>
#include <string>

#include "cifar/io/checkpoint.h"
#include "cifar/model/models.h"

namespace cifar {

// Writes the model's state dict to `path` (.safetensors, .pt, .pth; any other
// extension is std::invalid_argument, before anything is written: cifar-export
// refuses it first, resolve/inference.h).
void export_weights(const CheckpointInfo& info, ClassifierImpl& model,
                    const std::filesystem::path& path);
// cifar-export's: the same, after one warning naming what `path`'s format
// cannot carry of what changes the model's answers (export_losses).
void export_weights(const LoadedCheckpoint& checkpoint, const std::filesystem::path& path);

// What a weights file at `path` loses, by its format, of what the model
// `info` describes and that changes its answers, as one warning ("" when
// nothing): a .pt/.pth holds the tensors only, so the model, a stem other
// than cifar, a normalisation, image size or preparation other than the
// defaults and a test-time augmentation level are named with the options
// that say them back to cifar-eval and cifar-predict, and .safetensors as the
// format that keeps them; a .safetensors file keeps all but the TTA level.
std::string export_losses(const CheckpointInfo& info, const std::filesystem::path& path);

// Why cifar-export may not replace the file at `path` (its --out), or ""
// when it may: nothing is there, or a weights file cifar-export wrote (a
// .safetensors whose metadata names cifar-train's version, a .pt/.pth whose
// records are under LibTorch's "archive/"), not a file of a run folder.
std::string export_replace_problem(const std::filesystem::path& path);

// At the end of training: writes run_dir/model.safetensors, returns its path.
std::filesystem::path write_run_weights(const std::filesystem::path& run_dir,
                                        const CheckpointInfo& info, ClassifierImpl& model);

}  // namespace cifar
