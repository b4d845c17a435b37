// torch_legacy.h: .pt/.pth files in torch.save's legacy layout, as PyTorch
// wrote them before 1.6 (and with _use_new_zipfile_serialization=False); many
// published weights are still so (efficientnet_pytorch's, older torchvision's).
//
// The layout: five pickles and then the storages' bytes, in a row:
//   the magic number 0x1950a86a20f9469cfc6c
//   the protocol version, 1001
//   sys_info: {"protocol_version": 1001, "little_endian": True, "type_sizes": ...}
//   the saved object, whose storages are persistent ids
//     ("storage", torch.FloatStorage, key, location, numel, None)
//   the storage keys, in the order their bytes follow
//   per key: numel (int64, little-endian), then numel elements' raw bytes
// The object's pickle is read by the allowlisting unpickler of the zip
// layout's data.pkl (unpickle.h) twice: once to find where it ends (so the
// storage records can be found), once with the storages' bytes.
#pragma once

#include <string_view>

#include "cifar/formats/unpickle.h"

namespace cifar {

// Whether `bytes` starts as a legacy torch.save file (its magic number).
bool is_legacy_torch_file(std::string_view bytes);

// The saved object of a legacy torch.save file. std::runtime_error saying what
// is wrong (the caller names the file) for a file that is not one, saved on a
// big-endian machine, truncated, or past `limits`.
pickle::ValuePtr unpickle_legacy_torch(std::string_view bytes, const pickle::Limits& limits);

}  // namespace cifar
