// unpickle.h: a restricted unpickler for the data.pkl of torch.save files.
//
// It reads the opcodes torch.save writes (protocol 2, and those of 3-5 that a
// plain dict of tensors can use) into a small tree of values, and, like
// torch.load's weights_only=True, calls nothing but an allowlist:
// collections.OrderedDict (a state dict; its _metadata attribute, set by
// BUILD, is dropped), torch._utils._rebuild_tensor_v2 and _rebuild_parameter,
// and the torch.*Storage types for storage references. Anything else is
// refused by name. Limits bound what a small hostile file can make it do:
// containers nested past max_depth (freeing them would recurse), and
// storages and tensor copies past max_bytes (a storage that inflates to
// gigabytes, a tensor of stride 0). A container cannot be changed once it is
// inside another one (torch.save never does it), so no pickle builds a cycle.
// Every failure is a std::runtime_error saying what is wrong
// with the pickle; the caller adds the file name.
#pragma once

#include <torch/torch.h>

#include <functional>
#include <memory>
#include <string>
#include <string_view>
#include <utility>
#include <variant>
#include <vector>

namespace cifar::pickle {

// A Python value as far as weights files need one.
struct Value;
using ValuePtr = std::shared_ptr<Value>;
struct Global {
  std::string name;  // "module.qualname"
};
struct Storage {
  torch::Tensor data;  // 1-D, the whole storage
};
using Items = std::vector<ValuePtr>;
struct Tuple {
  Items items;
};
struct List {
  Items items;
};
struct Dict {
  std::vector<std::pair<ValuePtr, ValuePtr>> items;
};
struct Mark {};
struct Value {
  // None, bool, int, float, str (or bytes), ..., and the stack's mark.
  std::variant<std::monostate, bool, int64_t, double, std::string, Tuple, List, Dict, torch::Tensor,
               Storage, Global, Mark>
      content;
  // Set by the unpickler: containers below this one (0 for an empty one or a
  // scalar), and whether it is inside another container (then it is final).
  int depth = 0;
  bool contained = false;
};

// What one pickle may cost. A state dict nests about 5 deep (a checkpoint
// dict holding the optimiser's state dict); its storages are its tensors.
struct Limits {
  int max_depth = 32;
  uint64_t max_bytes = uint64_t{1} << 30;          // storages plus tensor copies
  std::string why = "the default limit of 1 GiB";  // said when max_bytes is passed
};

// Short Python name of a value's type ("dict", "tensor", ...).
const char* type_name(const Value& value);

// Returns the 1-D tensor of a storage reference: key (data/<key> in the zip),
// dtype and element count, as the persistent id gives them.
using StorageLoader =
    std::function<torch::Tensor(const std::string& key, torch::ScalarType dtype, int64_t numel)>;

// Runs the pickle and returns the object it builds.
// Each storage key is loaded once. `end`, when given, receives the offset just
// past the pickle's STOP (the legacy format writes several pickles in a row).
ValuePtr unpickle(std::string_view pickle, const StorageLoader& load_storage,
                  const Limits& limits = {}, size_t* end = nullptr);

}  // namespace cifar::pickle
