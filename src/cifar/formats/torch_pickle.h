// torch_pickle.h: .pt files that Python's torch.load and torch.save exchange.
//
// torch.save writes a zip (caffe2's PyTorchStreamWriter layout):
//   archive/data.pkl      a pickle (protocol 2) of the saved object; tensors
//                         appear as torch._utils._rebuild_tensor_v2(storage,
//                         offset, size, stride, ...) whose storages are
//                         persistent ids ("storage", torch.FloatStorage, key,
//                         device, numel)
//   archive/data/<key>    each storage's raw little-endian bytes
//   archive/byteorder, archive/.format_version, archive/version, ...
//
// Writing: torch::jit::Pickler with tag_aggregates=false writes a plain dict
// (torch::pickle_save's type tags, torch.jit._pickle.restore_type_tag, are
// refused by torch.load's default weights_only=True), tensors as
// _rebuild_tensor_v2 calls with their storages listed for the zip, which
// PyTorchStreamWriter lays out as Python's torch.save does.
//
// Reading: LibTorch's Unpickler cannot read what Python users have
// (torch.save(model.state_dict()) is an OrderedDict with a _metadata
// attribute: its REDUCE and BUILD fail), so a small unpickler here reads the
// opcodes torch.save emits and, like weights_only=True, calls nothing but an
// allowlist: collections.OrderedDict, torch._utils._rebuild_tensor_v2 and
// _rebuild_parameter, and the torch.*Storage types. Everything else is refused
// by name. The zip itself is read with PyTorchStreamReader.
#pragma once

#include <filesystem>
#include <string>
#include <string_view>
#include <vector>

#include "cifar/formats/safetensors.h"  // TensorMap
#include "cifar/formats/unpickle.h"     // pickle::Limits

namespace cifar {

// The keys under which a saved dict may hold the state dict, tried in order
// when the top-level dict is not itself one.
const std::vector<std::string>& state_dict_keys();

// The key that marks a PyTorch Lightning checkpoint (trainer.save_checkpoint,
// ModelCheckpoint's .ckpt files): its "state_dict" names every tensor after
// the LightningModule's attribute holding the model ("model.conv1.weight"),
// which the reader removes when all the names share it.
inline constexpr std::string_view kLightningVersionKey = "pytorch-lightning_version";

// The zip bytes of a torch.save-compatible file holding a plain dict name ->
// tensor (CPU, contiguous, detached; floating point as float32).
std::string encode_torch_state_dict(const TensorMap& tensors);
void write_torch_state_dict(const std::filesystem::path& path, const TensorMap& tensors);

// Reads a torch.save zip and returns its state dict: the top-level dict when
// all its values are tensors, else the tensor dict under one of
// state_dict_keys() (a Lightning checkpoint's without its attribute's
// prefix). std::runtime_error naming `source` and the problem for a
// file that is not a zip, a pickle that is not a dict, a class outside the
// allowlist, bad storage references or truncated data, and for one past
// `limits` (nesting, bytes of storages and tensors; data.pkl itself may
// inflate to kMaxPickleBytes at most).
inline constexpr uint64_t kMaxPickleBytes = uint64_t{64} << 20;  // ~300 bytes a tensor
TensorMap decode_torch_state_dict(const std::string& bytes, const std::string& source,
                                  const pickle::Limits& limits = {});
TensorMap read_torch_state_dict(const std::filesystem::path& path,
                                const pickle::Limits& limits = {});

}  // namespace cifar
