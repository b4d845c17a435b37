// pickle_tensors.h: the tensors of a torch.save pickle, for the unpickler
// (unpickle.h): the dtype a storage type names, the tensor
// torch._utils._rebuild_tensor_v2 builds from a storage, and the byte budget
// both draw on, so that a small file cannot make the reader allocate more
// than Limits::max_bytes (a storage of 2^40 elements, a tensor of stride 0
// over a one-element storage, the same storage rebuilt a million times).
#pragma once

#include <torch/torch.h>

#include <cstdint>
#include <string>

#include "cifar/formats/unpickle.h"

namespace cifar::pickle {

// Bytes allocated so far against Limits::max_bytes.
class ByteBudget {
 public:
  explicit ByteBudget(const Limits& limits) : limits_(limits) {}
  // Accounts for `numel` elements of `dtype` about to be allocated for
  // `what`; std::runtime_error when they would pass the limit.
  void take(int64_t numel, torch::ScalarType dtype, const std::string& what);

 private:
  const Limits& limits_;
  uint64_t used_ = 0;
};

// The dtype of torch.FloatStorage, torch.LongStorage, ...; std::runtime_error
// for any other name.
torch::ScalarType storage_dtype(const std::string& name);

// A storage's persistent id: ("storage", torch.FloatStorage, key, device,
// numel) in the zip layout; the legacy layout adds a sixth item, the storage
// it is a view of (None: not a view; a view is refused). std::runtime_error
// for a malformed one or an unknown storage type.
struct StorageRef {
  std::string key;
  torch::ScalarType dtype = torch::kFloat;
  int64_t numel = 0;
};
StorageRef storage_ref(const Value& pid);

// torch._utils._rebuild_tensor_v2(storage, offset, size, stride, ...): the
// view checked against the storage's bounds; the storage itself when the view
// is all of it, contiguous, else a copy (taken from `budget`).
torch::Tensor rebuild_tensor(const Value& args, ByteBudget& budget);

}  // namespace cifar::pickle
