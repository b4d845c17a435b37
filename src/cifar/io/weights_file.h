// weights_file.h: the two weights file formats, chosen by the file's extension.
//
//   .safetensors   the Hugging Face format (safetensors.h), with a
//                  __metadata__ map of strings (weights_metadata.h)
//   .pt / .pth     what Python's torch.save writes and torch.load reads
//                  (torch_pickle.h): a dict name -> tensor; on reading also
//                  torch.save(model.state_dict()) and dicts holding the state
//                  dict under one of state_dict_keys(); no metadata
//   .ckpt / .bin   read only: torch.save files under the names PyTorch
//                  Lightning (its checkpoints) and Hugging Face
//                  (pytorch_model.bin) give them
// Any other extension is refused by the tools before anything is read or
// written (resolve/, from weights_format_problem's text); here it is an
// impossible input.
#pragma once

#include <filesystem>
#include <string>

#include "cifar/core/types.h"
#include "cifar/formats/unpickle.h"  // pickle::Limits

namespace cifar {

enum class WeightsFormat { kSafetensors, kTorch };
enum class WeightsUse { kRead, kWrite };  // .ckpt and .bin are read only

// The format the extension names (case-insensitive). Precondition: it names
// one for this use (weights_format_problem is ""); std::invalid_argument
// otherwise.
WeightsFormat weights_format(const std::filesystem::path& path, WeightsUse use = WeightsUse::kRead);

// Why `path`'s extension names no weights format for this use, naming the
// file and the extensions that work; "" when it names one.
std::string weights_format_problem(const std::filesystem::path& path,
                                   WeightsUse use = WeightsUse::kRead);

// Why a weights file cannot be of the format its extension names, or "" when
// it may be; read from its first bytes only. A .pt/.pth that starts with
// neither a zip archive's header nor a pickle's (torch.save's) is empty,
// damaged or another program's, or a safetensors file (named so); a
// .safetensors that starts with one of them is a torch.save file (named so).
std::string weights_content_problem(const std::filesystem::path& path);

// A weights file's tensors and (safetensors only) its metadata.
struct WeightsFile {
  TensorMap tensors;
  StringMap metadata;
};
// The one reading of a weights file's layout: the tensors under the model's
// own names. A .pt dict holding the state dict under one of state_dict_keys()
// is unwrapped (formats/torch_pickle.h), then a prefix that every name
// carries, DataParallel's "module." or torch.compile's "_orig_mod." (nested
// in any order), is removed, in either format. Everything derived from a
// weights file (its class count, head, body, the strict match) reads this
// view only.
//
// `limits` bound what a .pt file may make the reader allocate (a .safetensors
// file is read as it is: its tensors are its bytes).
WeightsFile read_weights(const std::filesystem::path& path, const pickle::Limits& limits = {});

// The prefix removal of read_weights on a map: "module.conv1.weight" ->
// "conv1.weight" when every name has the prefix.
TensorMap without_wrapper_prefixes(const TensorMap& tensors);

// Writes `tensors` in the format the extension names; `metadata` goes into a
// .safetensors file and is dropped for .pt and .pth.
void write_weights(const std::filesystem::path& path, const TensorMap& tensors,
                   const StringMap& metadata);

}  // namespace cifar
