// torch_pickle.cpp: .pt files in torch.save's zip layout (see torch_pickle.h).
#include "cifar/formats/torch_pickle.h"

#include <caffe2/serialize/inline_container.h>
#include <fmt/format.h>
#include <fmt/ranges.h>
#include <torch/csrc/jit/serialization/pickler.h>

#include <algorithm>
#include <sstream>
#include <stdexcept>

#include "cifar/core/file_io.h"  // write_file_atomically
#include "cifar/core/names.h"
#include "cifar/formats/torch_legacy.h"
#include "cifar/formats/unpickle.h"

namespace cifar {
namespace {
using pickle::Dict;
using pickle::Value;
using pickle::ValuePtr;

// The tensors of a dict whose keys are strings and values tensors; false if
// it is not one.
bool as_tensor_map(const Value& value, TensorMap& out) {
  const auto* d = std::get_if<Dict>(&value.content);
  if (d == nullptr || d->items.empty()) return false;
  TensorMap map;
  for (const auto& [k, v] : d->items) {
    const auto* key = std::get_if<std::string>(&k->content);
    const auto* tensor = std::get_if<torch::Tensor>(&v->content);
    if (key == nullptr || tensor == nullptr) return false;
    map[*key] = *tensor;
  }
  out = std::move(map);
  return true;
}

// Whether a dict has the string key `key`.
bool has_key(const Dict& dict, std::string_view key) {
  return std::ranges::any_of(dict.items, [&](const auto& item) {
    const auto* name = std::get_if<std::string>(&item.first->content);
    return name != nullptr && *name == key;
  });
}

// A Lightning checkpoint's state dict under the model's own names: its
// LightningModule holds the model in one attribute ("self.model = ..."), and
// every name starts with that attribute's ("model.conv1.weight"). Left as it
// is when the names share no first part (a module holding several).
TensorMap without_lightning_attribute(TensorMap map) {
  const std::string first = map.begin()->first;
  const auto dot = first.find('.');
  if (dot == std::string::npos) return map;
  const std::string prefix = first.substr(0, dot + 1);
  if (!std::ranges::all_of(map, [&](const auto& kv) { return kv.first.starts_with(prefix); })) {
    return map;
  }
  TensorMap out;
  for (const auto& [name, t] : map) out[name.substr(prefix.size())] = t;
  return out;
}

// The state dict a saved object holds: itself when all its values are
// tensors, else the dict under one of state_dict_keys() (a Lightning
// checkpoint's under its attribute's name: without_lightning_attribute).
template <typename Fail>
TensorMap state_dict_of(const Value& root, const Fail& fail) {
  TensorMap map;
  if (as_tensor_map(root, map)) return map;
  const auto* d = std::get_if<Dict>(&root.content);
  if (d == nullptr) {
    throw fail(fmt::format("it holds {}, not a dict of tensors; save model.state_dict()",
                           a_or_an(pickle::type_name(root))));
  }
  // One state dict under the wrapper keys: two (a "model" and a
  // "state_dict") would leave the choice to the order of a list.
  std::vector<std::string> found;
  for (const auto& key : state_dict_keys()) {
    for (const auto& [k, v] : d->items) {
      const auto* name = std::get_if<std::string>(&k->content);
      TensorMap under;
      if (name != nullptr && *name == key && as_tensor_map(*v, under)) {
        if (found.empty()) map = std::move(under);
        found.push_back(key);
      }
    }
  }
  if (found.size() == 1) {
    return found.front() == "state_dict" && has_key(*d, kLightningVersionKey)
               ? without_lightning_attribute(std::move(map))
               : map;
  }
  if (found.size() > 1) {
    throw fail(fmt::format(
        "it holds a state dict under each of the keys {}, and which is the model's is not "
        "said: save the one to use alone, e.g. torch.save(checkpoint[\"{}\"], path)",
        fmt::join(found, ", "), found.front()));
  }
  throw fail(fmt::format("it holds a dict that is not a state dict and has none under the keys {}",
                         fmt::join(state_dict_keys(), ", ")));
}

// LibTorch's zip reader's error as one clause of ours: without its
// "[enforce fail at file:line] . " and the advice after its first sentence
// (miniz's "If you are seeing this error...", "Could this error message be
// improved?"), with what it means for the file.
std::string zip_problem(std::string text) {
  if (const auto at = text.find("] . "); text.starts_with("[enforce fail") && at != text.npos) {
    text.erase(0, at + 4);
  }
  if (text.find("hasRecord(\"version\")") != text.npos) {
    return "the zip holds no version record: it is not a torch.save archive";
  }
  if (text.starts_with("Couldn't parse the version")) {
    return "the zip's version record is not a number: the file is damaged";
  }
  const bool newer = text.starts_with("Attempted to read a PyTorch file with version");
  if (const auto end = text.find(". "); end != text.npos) text.erase(end);
  if (newer) {  // a PyTorch newer than this tool's LibTorch
    return text + "; save the weights as .safetensors (safetensors.torch.save_file), which any " +
           "version reads";
  }
  return fmt::format("the zip cannot be read ({}); the file is truncated or damaged", text);
}

}  // namespace

const std::vector<std::string>& state_dict_keys() {
  static const std::vector<std::string> keys{"state_dict", "model_state_dict", "model", "net",
                                             "weights"};
  return keys;
}

TensorMap decode_torch_state_dict(const std::string& bytes, const std::string& source,
                                  const pickle::Limits& limits) {
  const auto fail = [&](const std::string& problem) {
    return std::runtime_error(fmt::format("weights file {}: {}", source, problem));
  };
  if (is_legacy_torch_file(bytes)) {
    try {
      return state_dict_of(*unpickle_legacy_torch(bytes, limits), fail);
    } catch (const std::runtime_error& e) {
      if (std::string_view(e.what()).starts_with("weights file ")) throw;
      throw fail(fmt::format("{} (torch.save's legacy layout)", e.what()));
    }
  }
  if (bytes.size() < 4 || bytes.compare(0, 4, "PK\x03\x04") != 0) {
    throw fail(
        "not a torch.save file (a file from torch.jit.save or torch::save is not read); save it "
        "with torch.save(model.state_dict(), path) or as .safetensors");
  }
  std::istringstream stream(bytes);
  try {
    caffe2::serialize::PyTorchStreamReader zip(&stream);
    if (zip.hasRecord("byteorder")) {
      const auto [data, size] = zip.getRecord("byteorder");
      if (std::string(static_cast<const char*>(data.get()), size) != "little") {
        throw fail("it was saved on a big-endian machine, which this tool does not read");
      }
    }
    if (zip.hasRecord("constants.pkl")) {
      throw fail(
          "it is a TorchScript archive (torch.jit.save or LibTorch's torch::save), not a "
          "torch.save file; in Python, torch.save(model.state_dict(), path)");
    }
    if (!zip.hasRecord("data.pkl")) throw fail("the zip holds no data.pkl; not a torch.save file");
    if (zip.getRecordSize("data.pkl") > kMaxPickleBytes) {
      throw fail(fmt::format(
          "its data.pkl inflates to {} bytes, more than the {} a state dict's pickle can need",
          zip.getRecordSize("data.pkl"), kMaxPickleBytes));
    }
    const auto [data, size] = zip.getRecord("data.pkl");
    const auto load_storage = [&zip](const std::string& key, torch::ScalarType dtype,
                                     int64_t numel) {
      const std::string record = "data/" + key;
      if (!zip.hasRecord(record)) {
        throw std::runtime_error(fmt::format("the storage {} is missing", record));
      }
      const uint64_t want = static_cast<uint64_t>(numel) * c10::elementSize(dtype);
      if (zip.getRecordSize(record) != want) {
        throw std::runtime_error(fmt::format("the storage {} holds {} bytes, {} expected", record,
                                             zip.getRecordSize(record), want));
      }
      auto storage = torch::empty({numel}, torch::TensorOptions().dtype(dtype));
      if (want > 0) zip.getRecord(record, storage.data_ptr(), want);
      return storage;
    };
    const ValuePtr root = pickle::unpickle(
        std::string_view(static_cast<const char*>(data.get()), size), load_storage, limits);
    return state_dict_of(*root, fail);
  } catch (const c10::Error& e) {
    throw fail(zip_problem(e.what_without_backtrace()));
  } catch (const std::runtime_error& e) {
    if (std::string_view(e.what()).starts_with("weights file ")) throw;
    throw fail(e.what());
  }
}

std::string encode_torch_state_dict(const TensorMap& tensors) {
  c10::Dict<std::string, at::Tensor> dict;
  for (const auto& [name, tensor] : tensors) {
    auto t = tensor.detach().to(torch::kCPU);
    if (t.is_floating_point()) t = t.to(torch::kFloat32);
    dict.insert(name, t.clone(torch::MemoryFormat::Contiguous));  // storage == the tensor
  }
  std::vector<char> pickle_bytes;
  std::vector<std::string> keys;
  std::vector<at::Tensor> storages;
  {
    torch::jit::Pickler pickler(
        [&](const char* data, size_t size) {
          pickle_bytes.insert(pickle_bytes.end(), data, data + size);
        },
        /*tensor_table=*/nullptr, /*type_renamer=*/nullptr, /*memoized_class_types=*/nullptr,
        /*get_tensor_id=*/
        [&](const at::Tensor&) {
          keys.push_back(std::to_string(keys.size()));
          return keys.back();
        },
        /*tag_aggregates=*/false);
    pickler.protocol();
    pickler.pushIValue(dict);
    pickler.stop();
    storages = pickler.tensorData();
  }  // the pickler flushes on destruction
  std::string out;
  caffe2::serialize::PyTorchStreamWriter writer([&out](const void* data, size_t size) {
    out.append(static_cast<const char*>(data), size);
    return size;
  });
  // The records Python's torch.save writes, in its order.
  writer.writeRecord("data.pkl", pickle_bytes.data(), pickle_bytes.size());
  writer.writeRecord(".format_version", "1", 1);
  writer.writeRecord(".storage_alignment", "64", 2);
  writer.writeRecord("byteorder", "little", 6);
  TORCH_CHECK(storages.size() == keys.size(), "pickler listed ", storages.size(), " storages for ",
              keys.size(), " keys");
  for (size_t i = 0; i < storages.size(); ++i) {
    const auto& storage = storages[i].storage();
    writer.writeRecord("data/" + keys[i], storage.data(), storage.nbytes());
  }
  writer.writeEndOfFile();
  return out;
}

void write_torch_state_dict(const std::filesystem::path& path, const TensorMap& tensors) {
  write_file_atomically(path, encode_torch_state_dict(tensors));
}

TensorMap read_torch_state_dict(const std::filesystem::path& path, const pickle::Limits& limits) {
  return decode_torch_state_dict(read_file(path, uint64_t{1} << 34, "weights file"), path.string(),
                                 limits);
}

}  // namespace cifar
