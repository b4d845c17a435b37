// unpickle.cpp: see unpickle.h.
#include "cifar/formats/unpickle.h"

#include <fmt/format.h>

#include <algorithm>
#include <bit>
#include <map>
#include <stdexcept>

#include "cifar/core/names.h"
#include "cifar/formats/pickle_opcodes.h"
#include "cifar/formats/pickle_tensors.h"

namespace cifar::pickle {
namespace {

ValuePtr make(auto x) {
  auto p = std::make_shared<Value>();
  p->content = std::move(x);
  return p;
}

class Unpickler {
 public:
  Unpickler(std::string_view pickle, const StorageLoader& load, const Limits& limits)
      : in_(pickle), load_(load), limits_(limits), budget_(limits) {}

  ValuePtr run(size_t* end) {
    while (true) {
      const uint8_t op = byte();
      if (op == static_cast<uint8_t>(Op::STOP)) {
        if (stack_.size() != 1) throw std::runtime_error("the pickle ends with a malformed stack");
        if (end != nullptr) *end = pos_;
        return stack_.back();
      }
      step(op);
    }
  }

 private:
  std::string_view take(size_t n) {
    if (n > in_.size() - pos_) throw std::runtime_error("the pickle is truncated");
    auto s = in_.substr(pos_, n);
    pos_ += n;
    return s;
  }
  uint8_t byte() { return static_cast<uint8_t>(take(1)[0]); }
  uint64_t le(size_t n) {
    const auto s = take(n);
    uint64_t v = 0;
    for (size_t i = n; i-- > 0;) v = v << 8 | static_cast<uint8_t>(s[i]);
    return v;
  }
  std::string line() {
    const auto end = in_.find('\n', pos_);
    if (end == std::string_view::npos) throw std::runtime_error("the pickle is truncated");
    std::string s(in_.substr(pos_, end - pos_));
    pos_ = end + 1;
    return s;
  }
  ValuePtr pop() {
    if (stack_.empty() || std::holds_alternative<Mark>(stack_.back()->content)) {
      throw std::runtime_error("the pickle pops an empty stack");
    }
    auto v = stack_.back();
    stack_.pop_back();
    return v;
  }
  Items pop_to_mark() {
    if (marks_.empty() || marks_.back() > stack_.size())
      throw std::runtime_error("the pickle has no mark");
    Items items(stack_.begin() + static_cast<std::ptrdiff_t>(marks_.back()), stack_.end());
    stack_.resize(marks_.back());
    marks_.pop_back();
    return items;
  }
  ValuePtr& top() {
    if (stack_.empty()) throw std::runtime_error("the pickle reads an empty stack");
    return stack_.back();
  }
  void memo_put(uint64_t id) {
    if (id > in_.size()) throw std::runtime_error("the pickle's memo index is out of range");
    if (memo_.size() <= id) memo_.resize(id + 1);
    memo_[id] = top();
  }
  void memo_get(uint64_t id) {
    if (id >= memo_.size() || !memo_[id])
      throw std::runtime_error("the pickle reads an unset memo entry");
    stack_.push_back(memo_[id]);
  }
  // `parent` is about to hold `items`: refuses nesting past the limit and a
  // container put inside itself, and marks the items final.
  void contain(Value& parent, const Items& items) {
    for (const auto& item : items) {
      if (item.get() == &parent)
        throw std::runtime_error("the pickle puts a container inside itself");
      if (item->depth >= limits_.max_depth) {
        throw std::runtime_error(
            fmt::format("the pickle nests containers more than {} deep, which no state dict does",
                        limits_.max_depth));
      }
      parent.depth = std::max(parent.depth, item->depth + 1);
      item->contained = true;
    }
  }
  // A tuple or list of the items popped (TUPLE*, LIST).
  template <typename Container>
  void push_container(Items items) {
    auto v = make(Container{});
    contain(*v, items);
    std::get<Container>(v->content).items = std::move(items);
    stack_.push_back(std::move(v));
  }
  void check_open(const Value& target) {
    if (target.contained) {
      throw std::runtime_error(fmt::format(
          "the pickle changes {} already inside another container, which torch.save never does",
          a_or_an(type_name(target))));
    }
  }
  Dict& dict_at(ValuePtr& v) {
    auto* d = std::get_if<Dict>(&v->content);
    if (d == nullptr)
      throw std::runtime_error(fmt::format("the pickle sets items on {}", a_or_an(type_name(*v))));
    return *d;
  }
  void set_items(ValuePtr& target, const Items& kv) {
    if (kv.size() % 2 != 0) throw std::runtime_error("the pickle sets an odd number of items");
    auto& d = dict_at(target);
    check_open(*target);
    contain(*target, kv);
    for (size_t i = 0; i < kv.size(); i += 2) d.items.emplace_back(kv[i], kv[i + 1]);
  }
  void append(ValuePtr& target, const Items& items) {
    auto* l = std::get_if<List>(&target->content);
    if (l == nullptr)
      throw std::runtime_error(
          fmt::format("the pickle appends to {}", a_or_an(type_name(*target))));
    check_open(*target);
    contain(*target, items);
    l->items.insert(l->items.end(), items.begin(), items.end());
  }
  void push_global(const std::string& module, const std::string& name) {
    const std::string full = module + "." + name;
    if (full == "collections.OrderedDict" || full == "torch._utils._rebuild_tensor_v2" ||
        full == "torch._utils._rebuild_parameter" ||
        (module == "torch" && name.ends_with("Storage"))) {
      stack_.push_back(make(Global{full}));
      return;
    }
    throw std::runtime_error(
        fmt::format("it holds a Python object of type {}, which a weights file does not need; save "
                    "model.state_dict() (tensors only) instead",
                    full));
  }
  void reduce(const ValuePtr& callable, const ValuePtr& args) {
    const auto* g = std::get_if<Global>(&callable->content);
    if (g == nullptr) throw std::runtime_error("the pickle calls something that is not a class");
    if (g->name == "collections.OrderedDict") {
      stack_.push_back(make(Dict{}));
    } else if (g->name == "torch._utils._rebuild_tensor_v2") {
      stack_.push_back(make(rebuild_tensor(*args, budget_)));
    } else if (g->name == "torch._utils._rebuild_parameter") {  // (data, requires_grad, hooks)
      const auto* t = std::get_if<Tuple>(&args->content);
      if (t == nullptr || t->items.empty() ||
          !std::holds_alternative<torch::Tensor>(t->items[0]->content)) {
        throw std::runtime_error("_rebuild_parameter called without a tensor");
      }
      stack_.push_back(t->items[0]);
    } else {
      throw std::runtime_error(fmt::format("the pickle calls {}, which is not allowed", g->name));
    }
  }
  // A persistent id (storage_ref) -> the bytes of data/<key>, each key loaded once.
  ValuePtr load_storage(const ValuePtr& pid) {
    const StorageRef ref = storage_ref(*pid);
    if (const auto it = storages_.find(ref.key); it != storages_.end()) return it->second;
    budget_.take(ref.numel, ref.dtype, "the storage data/" + ref.key);
    auto data = load_(ref.key, ref.dtype, ref.numel);
    return storages_[ref.key] = make(Storage{data});
  }
  uint64_t be64() {  // BINFLOAT is big-endian
    const auto s = take(8);
    uint64_t v = 0;
    for (char c : s) v = v << 8 | static_cast<uint8_t>(c);
    return v;
  }
  int64_t long1() {  // n little-endian two's-complement bytes
    const size_t n = byte();
    if (n > 8) throw std::runtime_error("the pickle holds an integer wider than 64 bits");
    uint64_t v = n ? le(n) : 0;
    if (n > 0 && n < 8 && (v >> (8 * n - 1)) & 1) v |= ~uint64_t{0} << (8 * n);
    return static_cast<int64_t>(v);
  }
  static const std::string& str(const Value& v) {
    const auto* s = std::get_if<std::string>(&v.content);
    if (s == nullptr) throw std::runtime_error("the pickle names a class with a non-string");
    return *s;
  }
  void push(auto x) { stack_.push_back(make(std::move(x))); }
  void step(uint8_t byte_read);

  std::string_view in_;
  size_t pos_ = 0;
  const StorageLoader& load_;
  const Limits& limits_;
  ByteBudget budget_;
  std::map<std::string, ValuePtr> storages_;  // by key, as torch.load shares them
  Items stack_;
  std::vector<size_t> marks_;
  Items memo_;
};

// One line per opcode reads best.
// clang-format off
void Unpickler::step(uint8_t byte_read) {
  const auto op = static_cast<Op>(byte_read);
  switch (op) {
    case Op::PROTO: byte(); break;
    case Op::FRAME: le(8); break;
    case Op::MARK: marks_.push_back(stack_.size()); break;
    case Op::POP: pop(); break;
    case Op::POP_MARK: pop_to_mark(); break;
    case Op::DUP: stack_.push_back(top()); break;
    case Op::NONE: push(std::monostate{}); break;
    case Op::NEWTRUE: push(true); break;
    case Op::NEWFALSE: push(false); break;
    case Op::BININT1: push(static_cast<int64_t>(le(1))); break;
    case Op::BININT2: push(static_cast<int64_t>(le(2))); break;
    case Op::BININT: push(static_cast<int64_t>(static_cast<int32_t>(le(4)))); break;
    case Op::LONG1: push(long1()); break;
    case Op::BINFLOAT: push(std::bit_cast<double>(be64())); break;
    case Op::SHORT_BINUNICODE: case Op::SHORT_BINBYTES: case Op::SHORT_BINSTRING:
      push(std::string(take(byte()))); break;
    case Op::BINUNICODE: case Op::BINBYTES: push(std::string(take(le(4)))); break;
    case Op::BINUNICODE8: case Op::BINBYTES8: push(std::string(take(le(8)))); break;
    case Op::EMPTY_TUPLE: push(Tuple{}); break;
    case Op::TUPLE: push_container<Tuple>(pop_to_mark()); break;
    case Op::TUPLE1: case Op::TUPLE2: case Op::TUPLE3: {
      Items items(byte_read - static_cast<uint8_t>(Op::TUPLE1) + 1);
      for (size_t i = items.size(); i-- > 0;) items[i] = pop();
      push_container<Tuple>(std::move(items));
    } break;
    case Op::EMPTY_LIST: push(List{}); break;
    case Op::LIST: push_container<List>(pop_to_mark()); break;
    case Op::APPEND: { auto v = pop(); append(top(), {v}); } break;
    case Op::APPENDS: { auto items = pop_to_mark(); append(top(), items); } break;
    case Op::EMPTY_DICT: push(Dict{}); break;
    case Op::DICT: { auto items = pop_to_mark(); push(Dict{}); set_items(top(), items); } break;
    case Op::SETITEM: { auto v = pop(); auto k = pop(); set_items(top(), {k, v}); } break;
    case Op::SETITEMS: { auto items = pop_to_mark(); set_items(top(), items); } break;
    case Op::GLOBAL: { auto module = line(); push_global(module, line()); } break;
    case Op::STACK_GLOBAL: {
      auto name = pop();
      auto module = pop();
      push_global(str(*module), str(*name));
    } break;
    case Op::REDUCE: case Op::NEWOBJ: {
      auto args = pop();
      auto callable = pop();
      reduce(callable, args);
    } break;
    case Op::BUILD: pop(); top(); break;  // object state (OrderedDict._metadata) is not needed
    case Op::BINPERSID: stack_.push_back(load_storage(pop())); break;
    case Op::BINPUT: memo_put(le(1)); break;
    case Op::LONG_BINPUT: memo_put(le(4)); break;
    case Op::MEMOIZE: memo_put(memo_.size()); break;
    case Op::BINGET: memo_get(le(1)); break;
    case Op::LONG_BINGET: memo_get(le(4)); break;
    default:
      throw std::runtime_error(fmt::format(
          "the pickle uses opcode 0x{:02x}, which torch.save does not write", byte_read));
  }
}
// clang-format on

}  // namespace

const char* type_name(const Value& value) {
  constexpr const char* names[] = {"None", "bool", "int",    "float",   "str",   "tuple",
                                   "list", "dict", "tensor", "storage", "class", "mark"};
  return names[value.content.index()];
}

ValuePtr unpickle(std::string_view pickle, const StorageLoader& load_storage, const Limits& limits,
                  size_t* end) {
  return Unpickler(pickle, load_storage, limits).run(end);
}

}  // namespace cifar::pickle
