// checkpoint_payload.cpp: each tensor of a checkpoint's payload within its
// storage (see checkpoint_payload.h).
#include "cifar/io/checkpoint_payload.h"

#include <caffe2/serialize/inline_container.h>
#include <fmt/format.h>
#include <fmt/ranges.h>
#include <torch/csrc/jit/serialization/import_read.h>
#include <torch/csrc/jit/serialization/storage_context.h>
#include <torch/torch.h>

#include <cstring>
#include <memory>

#include "cifar/core/errors.h"
#include "cifar/io/checkpoint_bytes.h"

namespace cifar {
namespace {

using checkpoint_bytes::fail;

// The payload's bytes, as LibTorch's zip reader reads a file.
class MemoryReader final : public caffe2::serialize::ReadAdapterInterface {
 public:
  MemoryReader(const char* data, size_t size) : data_(data), size_(size) {}
  size_t size() const override { return size_; }
  size_t read(uint64_t pos, void* buf, size_t n, const char* /*what*/) const override {
    if (pos >= size_) return 0;
    n = std::min<size_t>(n, size_ - pos);
    std::memcpy(buf, data_ + pos, n);
    return n;
  }

 private:
  const char* data_;
  size_t size_;
};

// Refuses a tensor whose last element lies past its storage's end.
void check_within_storage(const torch::Tensor& t, const std::string& src) {
  if (t.layout() != torch::kStrided) {
    fail(src,
         "it holds a tensor that is not dense, which no cifar-train checkpoint has; the "
         "file was edited or is damaged");
  }
  if (t.numel() == 0) return;
  // The last element's index in the storage, and the bytes up to its end.
  int64_t last = t.storage_offset();
  bool overflows = last < 0;
  for (int64_t d = 0; d < t.dim(); ++d) {
    int64_t span = 0;
    overflows = overflows || t.stride(d) < 0 ||
                __builtin_mul_overflow(t.size(d) - 1, t.stride(d), &span) ||
                __builtin_add_overflow(last, span, &last);
  }
  uint64_t needed = 0;
  overflows = overflows || __builtin_mul_overflow(static_cast<uint64_t>(last) + 1,
                                                  static_cast<uint64_t>(t.element_size()), &needed);
  const size_t held = t.has_storage() ? t.storage().nbytes() : 0;
  if (overflows || needed > held) {
    fail(src,
         fmt::format("a tensor of shape [{}] needs {} bytes of its storage, which holds {}; "
                     "the file was edited or is damaged: use another checkpoint",
                     fmt::join(t.sizes(), ", "),
                     overflows ? std::string("more than 2^63") : std::to_string(needed), held));
  }
}

// Deeper than any checkpoint nests (an archive, a module, its state dict, a
// list of groups, ...): a pickle that nests past it (or holds itself, which
// the memo allows) is damaged.
constexpr int kMaxDepth = 32;

}  // namespace

void check_tensors(const c10::IValue& v, const std::string& src, int depth) {
  if (depth > kMaxDepth) {
    fail(src, fmt::format("its weights nest more than {} deep; the file is damaged", kMaxDepth));
  }
  if (v.isTensor()) {
    check_within_storage(v.toTensor(), src);
  } else if (v.isObject()) {
    for (const c10::IValue& slot : v.toObjectRef().slots()) check_tensors(slot, src, depth + 1);
  } else if (v.isList()) {
    for (const c10::IValue& e : v.toListRef()) check_tensors(e, src, depth + 1);
  } else if (v.isTuple()) {
    for (const c10::IValue& e : v.toTupleRef().elements()) check_tensors(e, src, depth + 1);
  } else if (v.isGenericDict()) {
    for (const auto& entry : v.toGenericDict()) {
      check_tensors(entry.key(), src, depth + 1);
      check_tensors(entry.value(), src, depth + 1);
    }
  }
}

void check_payload_tensors(const char* data, size_t size, const std::string& source) {
  c10::IValue root;
  try {
    caffe2::serialize::PyTorchStreamReader reader(std::make_shared<MemoryReader>(data, size));
    // Each storage as long as its entry: data.pkl's references find them here.
    auto storages = std::make_shared<torch::jit::DeserializationStorageContext>();
    for (const std::string& name : reader.getAllRecords()) {
      if (!name.starts_with("data/")) continue;
      // Only the length counts here: the storage points into the payload
      // where the entry lies (stored, as LibTorch writes it), not a copy.
      const size_t length = reader.getRecordSize(name);
      const size_t offset = reader.getRecordOffset(name);
      c10::DataPtr bytes = offset <= size && length <= size - offset
                               ? c10::DataPtr(const_cast<char*>(data + offset), torch::kCPU)
                               : std::get<0>(reader.getRecord(name));
      storages->addStorage(name.substr(5), c10::Storage(c10::Storage::use_byte_size_t(), length,
                                                        std::move(bytes), nullptr, false));
    }
    // The modules' classes, made up as they are named: each object keeps
    // the state data.pkl gives it, to be walked.
    auto unit = std::make_shared<torch::jit::CompilationUnit>();
    auto resolve = [unit](const c10::QualifiedName& name) {
      c10::ClassTypePtr cls = unit->get_class(name);
      if (!cls) {
        cls = c10::ClassType::create(name, unit, /*is_module=*/false);
        cls->addAttribute("state", c10::AnyType::get());
        unit->register_type(cls);
      }
      return c10::StrongTypePtr(unit, cls);
    };
    auto load = [](const c10::StrongTypePtr& type, c10::IValue state) {
      auto object = c10::ivalue::Object::create(type, 1);
      object->setSlot(0, std::move(state));
      return object;
    };
    root = torch::jit::readArchiveAndTensors("data", "", "", resolve, load, torch::kCPU, reader,
                                             torch::jit::Unpickler::defaultTypeParser, storages);
  } catch (const std::exception& e) {  // c10::Error, std::out_of_range, std::bad_alloc
    fail(source,
         fmt::format("the weights cannot be read ({}); the file is damaged", first_line(e.what())));
  }
  check_tensors(root, source);
}

}  // namespace cifar
