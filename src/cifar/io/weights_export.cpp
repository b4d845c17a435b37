// weights_export.cpp: models to weights files (see weights_export.h).
#include "cifar/io/weights_export.h"

#include <fmt/format.h>
#include <fmt/ranges.h>
#include <spdlog/spdlog.h>

#include <nlohmann/json.hpp>

#include "cifar/core/file_io.h"
#include "cifar/data/cifar10.h"
#include "cifar/io/checkpoint_owner.h"
#include "cifar/io/weights_file.h"
#include "cifar/io/weights_metadata.h"
#include "cifar/model/state_dict.h"

namespace cifar {
namespace fs = std::filesystem;

void export_weights(const CheckpointInfo& info, ClassifierImpl& model, const fs::path& path) {
  write_weights(path, model_state_dict(model), weights_metadata(info));
}

void export_weights(const LoadedCheckpoint& checkpoint, const fs::path& path) {
  if (const std::string lost = export_losses(checkpoint.info, path); !lost.empty()) {
    spdlog::warn("{}", lost);
  }
  // What a --weights file did not record stays unsaid, not the defaults
  // assumed for it: the tools that read the export then say so again.
  StringMap metadata = weights_metadata(checkpoint.info);
  if (!checkpoint.normalization_known) {
    metadata.erase("mean");
    metadata.erase("std");
  }
  if (!checkpoint.class_names_known) metadata.erase("classes");
  write_weights(path, model_state_dict(*checkpoint.model), metadata);
}

std::string export_losses(const CheckpointInfo& info, const fs::path& path) {
  const std::string tta = info.tta > 0 ? fmt::format(" --tta {}", info.tta) : "";
  const std::string file = path.string();
  if (weights_format(path, WeightsUse::kWrite) != WeightsFormat::kTorch) {
    if (tta.empty()) return "";
    return fmt::format(
        "{} does not keep the test-time augmentation level ({}) the model is judged with: give "
        "cifar-eval and cifar-predict --weights {}{} for its answers (its checkpoint keeps it)",
        file, info.tta, file, tta);
  }
  std::string flags = " --model " + info.model;
  if (info.stem == to_string(ResNetStem::kImageNet)) flags += " --stem imagenet";
  if (info.normalization != Normalization{}) {
    flags += fmt::format(" --mean {} --std {}", fmt::join(info.normalization.mean, ","),
                         fmt::join(info.normalization.std, ","));
  }
  if (info.image.image_size != kCifarImageSize)
    flags += fmt::format(" --image-size {}", info.image.image_size);
  if (info.prep != kWholeImage) {
    flags +=
        fmt::format(" --crop-mode {} --crop-pct {}", to_string(info.prep.mode), info.prep.crop_pct);
  }
  const bool named = info.class_names.size() == default_class_names().size() &&
                     info.class_names == default_class_names();
  return fmt::format(
      "{} holds the weights only, not how the model was trained: cifar-eval and cifar-predict "
      "--weights {} need{}{} to give its answers{}; export to {} instead to keep {}",
      file, file, flags, tta,
      named ? "" : fmt::format(", and its {} class names are lost", info.class_names.size()),
      fs::path(path).replace_extension(".safetensors").string(),
      tta.empty() ? "all of it" : "all of it but the TTA level");
}

namespace {

// Whether the file at `path` is a weights file cifar-export writes.
bool written_by_export(const fs::path& path) {
  if (!weights_format_problem(path, WeightsUse::kWrite).empty()) return false;
  const std::string front = read_front(path, 64, "--out");
  if (weights_format(path, WeightsUse::kWrite) == WeightsFormat::kTorch) {
    // A zip whose first record is "archive/data.pkl": LibTorch's writer
    // names its records so; torch.save names them after the file.
    constexpr std::string_view kRecord = "archive/data.pkl";
    constexpr size_t kName = 30;  // where a zip's local file header holds the name
    return front.starts_with("PK\x03\x04") && front.size() >= kName + kRecord.size() &&
           std::string_view(front).substr(kName, kRecord.size()) == kRecord;
  }
  if (front.size() < 8) return false;
  uint64_t length = 0;
  for (size_t i = 8; i-- > 0;) length = length << 8 | static_cast<unsigned char>(front[i]);
  if (length > (uint64_t{100} << 20)) return false;
  const std::string header = read_front(path, 8 + length, "--out").substr(8);
  const auto j = nlohmann::json::parse(header, nullptr, /*allow_exceptions=*/false);
  const auto meta = j.is_object() ? j.find("__metadata__") : j.end();
  return meta != j.end() && meta->is_object() && meta->contains("cifar_train_version");
}

}  // namespace

std::string export_replace_problem(const fs::path& path) {
  std::error_code ec;
  if (!fs::exists(fs::symlink_status(path, ec))) return "";
  const std::string hint =
      "cifar-export replaces only weights files it wrote: choose another --out, or move the file "
      "away yourself";
  if (const std::string kind = non_file_kind(path); !kind.empty()) {
    return fmt::format("--out {} is {}, not a weights file; {}", path.string(), kind, hint);
  }
  if (const auto folder = run_folder_of(path)) {
    return fmt::format("--out {} is a file of run folder {}, that run's output; {}", path.string(),
                       folder->string(), hint);
  }
  // An empty file (touch, mktemp) holds nothing to lose.
  if (fs::file_size(path, ec) == 0 && !ec) return "";
  if (!written_by_export(path)) {
    return fmt::format("--out {} holds something cifar-export did not write; {}", path.string(),
                       hint);
  }
  return "";
}

fs::path write_run_weights(const fs::path& run_dir, const CheckpointInfo& info,
                           ClassifierImpl& model) {
  const fs::path path = run_dir / "model.safetensors";
  export_weights(info, model, path);
  return path;
}

}  // namespace cifar
