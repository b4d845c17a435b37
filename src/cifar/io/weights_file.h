// weights_file.h: the two weights file formats, chosen by the file's extension.
//
//   .safetensors   the Hugging Face format (safetensors.h), with a
//                  __metadata__ map of strings (weights_metadata.h)
//   .pt / .pth     what Python's torch.save writes and torch.load reads
//                  (torch_pickle.h): a dict name -> tensor; on reading also
//                  torch.save(model.state_dict()) and dicts holding the state
//                  dict under one of state_dict_keys(); no metadata
// Any other extension is a UsageError naming the file and the extensions
// that work.
#pragma once

#include <filesystem>

#include "cifar/core/types.h"

namespace cifar {

enum class WeightsFormat { kSafetensors, kTorch };

// The format the extension names (case-insensitive); UsageError otherwise.
WeightsFormat weights_format(const std::filesystem::path& path);

// A weights file's tensors and (safetensors only) its metadata.
struct WeightsFile {
  TensorMap tensors;
  StringMap metadata;
};
WeightsFile read_weights(const std::filesystem::path& path);

// Writes `tensors` in the format the extension names; `metadata` goes into a
// .safetensors file and is dropped for .pt and .pth.
void write_weights(const std::filesystem::path& path, const TensorMap& tensors,
                   const StringMap& metadata);

}  // namespace cifar
