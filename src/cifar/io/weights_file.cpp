// weights_file.cpp: format dispatch by extension (see weights_file.h).
#include "cifar/io/weights_file.h"

#include <fmt/format.h>

#include <algorithm>
#include <cctype>
#include <optional>
#include <stdexcept>
#include <string>

#include "cifar/core/file_io.h"
#include "cifar/core/names.h"
#include "cifar/formats/safetensors.h"
#include "cifar/formats/torch_pickle.h"

namespace cifar {
namespace fs = std::filesystem;

namespace {
// Lightning's .ckpt and Hugging Face's pytorch_model.bin are torch.save
// files too: read, never written (a .ckpt Lightning reads needs its trainer's
// state).
bool read_only_extension(const std::string& ext) {
  return ext == ".ckpt" || ext == ".bin";
}

std::optional<WeightsFormat> format_of(const fs::path& path, WeightsUse use) {
  const std::string ext = lower_case(path.extension().string());
  if (ext == ".safetensors") return WeightsFormat::kSafetensors;
  if (ext == ".pt" || ext == ".pth") return WeightsFormat::kTorch;
  if (use == WeightsUse::kRead && read_only_extension(ext)) return WeightsFormat::kTorch;
  return std::nullopt;
}
}  // namespace

std::string weights_format_problem(const fs::path& path, WeightsUse use) {
  if (format_of(path, use)) return "";
  const std::string ext = lower_case(path.extension().string());
  if (const std::string name = path.filename().string();
      path.extension().empty() &&
      format_of("x" + name, use)) {  // ".safetensors": no name before it
    return fmt::format("weights file {}: a name that is only an extension; name it NAME{}",
                       path.string(), name);
  }
  if (read_only_extension(ext)) {
    return fmt::format(
        "weights file {}: .ckpt (Lightning's checkpoints) and .bin (Hugging Face's "
        "pytorch_model.bin) are read, not written; write .safetensors, .pt or .pth",
        path.string());
  }
  // ONNX is written from Python (LibTorch has no exporter): say where; read,
  // it is the .safetensors it was made from that the tools take.
  const std::string onnx =
      use == WeightsUse::kRead
          ? " (an ONNX file is not read: give the .safetensors or .pt it was exported from)"
          : " (ONNX: write a .safetensors, then run scripts/python/export_onnx.py "
            "FILE.safetensors FILE.onnx)";
  return fmt::format("weights file {}: unknown extension '{}'; use .safetensors, .pt or .pth{}{}",
                     path.string(), path.extension().string(),
                     use == WeightsUse::kRead ? " (or a torch.save file named .ckpt or .bin)" : "",
                     ext == ".onnx" ? onnx : "");
}

std::string weights_content_problem(const fs::path& path) {
  std::error_code ec;
  if (!fs::is_regular_file(path, ec)) return "";  // missing, a FIFO: its reader says so
  const std::string front = read_front(path, 9, "the weights file");
  // A header length, then JSON; its length's low byte may be a pickle's 0x80.
  const bool safetensors = front.size() == 9 && front[8] == '{';
  const bool torch_save =
      front.starts_with("PK\x03\x04") || (front.starts_with("\x80") && !safetensors);
  if (weights_format(path) == WeightsFormat::kSafetensors) {
    if (!torch_save) return "";
    return fmt::format(
        "weights file {} is a PyTorch file (torch.save's zip or pickle), not safetensors: name "
        "it {}",
        path.string(), fs::path(path).replace_extension(".pt").string());
  }
  if (torch_save) return "";
  if (safetensors) {
    return fmt::format("weights file {} is a safetensors file, not torch.save's: name it {}",
                       path.string(), fs::path(path).replace_extension(".safetensors").string());
  }
  return fmt::format(
      "weights file {} is not a PyTorch file: it starts with neither a zip archive's header "
      "(torch.save) nor a pickle's (an empty, damaged or other program's file); in Python, "
      "torch.save(model.state_dict(), path) writes one",
      path.string());
}

WeightsFormat weights_format(const fs::path& path, WeightsUse use) {
  if (const auto format = format_of(path, use)) return *format;
  throw std::invalid_argument(weights_format_problem(path, use));
}

TensorMap without_wrapper_prefixes(const TensorMap& tensors) {
  for (const std::string prefix : {"module.", "_orig_mod."}) {
    if (!tensors.empty() && std::all_of(tensors.begin(), tensors.end(), [&](const auto& kv) {
          return kv.first.starts_with(prefix);
        })) {
      TensorMap out;
      for (const auto& [name, t] : tensors) out[name.substr(prefix.size())] = t;
      return without_wrapper_prefixes(out);
    }
  }
  return tensors;
}

WeightsFile read_weights(const fs::path& path, const pickle::Limits& limits) {
  if (weights_format(path) == WeightsFormat::kTorch) {
    return {without_wrapper_prefixes(read_torch_state_dict(path, limits)), {}};
  }
  auto file = read_safetensors(path);
  return {without_wrapper_prefixes(file.tensors), std::move(file.metadata)};
}

void write_weights(const fs::path& path, const TensorMap& tensors, const StringMap& metadata) {
  if (weights_format(path, WeightsUse::kWrite) == WeightsFormat::kTorch) {
    write_torch_state_dict(path, tensors);
  } else {
    write_safetensors(path, tensors, metadata);
  }
}

}  // namespace cifar
