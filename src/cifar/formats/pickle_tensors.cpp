// pickle_tensors.cpp: see pickle_tensors.h.
#include "cifar/formats/pickle_tensors.h"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <stdexcept>
#include <utility>
#include <vector>

#include "cifar/core/names.h"

namespace cifar::pickle {
namespace {

std::vector<int64_t> int_tuple(const Value& value, const char* what) {
  const auto* t = std::get_if<Tuple>(&value.content);
  if (t == nullptr)
    throw std::runtime_error(fmt::format("{} is {}, not a tuple", what, a_or_an(type_name(value))));
  std::vector<int64_t> out;
  for (const auto& item : t->items) {
    const auto* i = std::get_if<int64_t>(&item->content);
    if (i == nullptr || *i < 0) throw std::runtime_error(fmt::format("{} holds a non-size", what));
    if (*i > (int64_t{1} << 40))
      throw std::runtime_error(fmt::format("{} holds {}, implausibly large", what, *i));
    out.push_back(*i);
  }
  return out;
}

// Elements a tensor of `size` holds, or -1 when the sizes multiply past 2^62
// (zeros counted as ones, as LibTorch's strides count them: an empty tensor
// of such sizes overflows them too).
int64_t count_elements(const std::vector<int64_t>& size) {
  int64_t span = 1;
  bool empty = false;
  for (int64_t s : size) {
    if (s == 0) empty = true;
    if (std::max<int64_t>(s, 1) > (int64_t{1} << 62) / span) return -1;
    span *= std::max<int64_t>(s, 1);
  }
  return empty ? 0 : span;
}

}  // namespace

void ByteBudget::take(int64_t numel, torch::ScalarType dtype, const std::string& what) {
  const uint64_t element = c10::elementSize(dtype);
  const uint64_t left = limits_.max_bytes - used_;
  if (numel < 0 || static_cast<uint64_t>(numel) > left / element) {
    throw std::runtime_error(fmt::format(
        "its tensors need more memory than a weights file for this model can ({} would take {} "
        "bytes; {} of at most {} are taken: {})",
        what,
        numel < 0 ? std::string("over 2^62 elements of")
                  : std::to_string(static_cast<uint64_t>(numel) * element),
        used_, limits_.max_bytes, limits_.why));
  }
  used_ += static_cast<uint64_t>(numel) * element;
}

torch::ScalarType storage_dtype(const std::string& name) {
  static const std::pair<const char*, torch::ScalarType> kTypes[] = {
      {"torch.FloatStorage", torch::kFloat32}, {"torch.DoubleStorage", torch::kFloat64},
      {"torch.HalfStorage", torch::kFloat16},  {"torch.BFloat16Storage", torch::kBFloat16},
      {"torch.LongStorage", torch::kInt64},    {"torch.IntStorage", torch::kInt32},
      {"torch.ShortStorage", torch::kInt16},   {"torch.CharStorage", torch::kInt8},
      {"torch.ByteStorage", torch::kUInt8},    {"torch.BoolStorage", torch::kBool}};
  for (const auto& [n, t] : kTypes) {
    if (name == n) return t;
  }
  throw std::runtime_error(fmt::format("storage type {} is not supported", name));
}

StorageRef storage_ref(const Value& pid) {
  const auto* t = std::get_if<Tuple>(&pid.content);
  if (t == nullptr || t->items.size() < 5 || t->items.size() > 6)
    throw std::runtime_error("a storage reference is malformed");
  if (t->items.size() == 6 && !std::holds_alternative<std::monostate>(t->items[5]->content)) {
    throw std::runtime_error(
        "a storage reference is a view of another storage, which torch.save "
        "of a state dict does not write; save it again with torch.save");
  }
  const auto* kind = std::get_if<std::string>(&t->items[0]->content);
  const auto* type = std::get_if<Global>(&t->items[1]->content);
  const auto* key = std::get_if<std::string>(&t->items[2]->content);
  const auto* numel = std::get_if<int64_t>(&t->items[4]->content);
  if (kind == nullptr || *kind != "storage" || type == nullptr || key == nullptr ||
      numel == nullptr || *numel < 0) {
    throw std::runtime_error("a storage reference is malformed");
  }
  return {.key = *key, .dtype = storage_dtype(type->name), .numel = *numel};
}

torch::Tensor rebuild_tensor(const Value& args, ByteBudget& budget) {
  const auto* t = std::get_if<Tuple>(&args.content);
  if (t == nullptr || t->items.size() < 4) {
    throw std::runtime_error("_rebuild_tensor_v2 called without (storage, offset, size, stride)");
  }
  const auto* storage = std::get_if<Storage>(&t->items[0]->content);
  const auto* offset = std::get_if<int64_t>(&t->items[1]->content);
  if (storage == nullptr || offset == nullptr || *offset < 0) {
    throw std::runtime_error("_rebuild_tensor_v2 has no storage or a bad offset");
  }
  const auto size = int_tuple(*t->items[2], "a tensor's size");
  const auto stride = int_tuple(*t->items[3], "a tensor's stride");
  if (size.size() != stride.size())
    throw std::runtime_error("a tensor's size and stride differ in length");
  const int64_t numel = count_elements(size);
  if (numel < 0) {
    throw std::runtime_error(fmt::format(
        "a tensor of size [{}] is too large to hold, even with no elements: the file is damaged",
        fmt::join(size, ", ")));
  }
  const torch::Tensor& data = storage->data;  // [storage elements]
  if (numel == 0) return torch::empty(size, data.options());
  // The furthest element the view touches, checked step by step (no overflow).
  int64_t last = *offset;
  bool contiguous = true;
  int64_t expected_stride = 1;
  for (size_t i = size.size(); i-- > 0;) {
    const int64_t reach = size[i] - 1;
    if (reach > 0 && stride[i] > 0 && reach > (data.numel() - last) / stride[i]) last = -1;
    if (last < 0) break;
    last += reach * stride[i];
    if (size[i] != 1 && stride[i] != expected_stride) contiguous = false;
    expected_stride *= size[i];
  }
  if (last < 0 || last >= data.numel()) {
    throw std::runtime_error(
        fmt::format("a tensor reaches past the end of its storage of {}", data.numel()));
  }
  if (contiguous && *offset == 0 && numel == data.numel()) return data.view(size);
  budget.take(numel, data.scalar_type(),
              fmt::format("a tensor of size [{}]", fmt::join(size, ", ")));
  return data.as_strided(size, stride, *offset).clone();
}

}  // namespace cifar::pickle
