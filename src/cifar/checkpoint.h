// checkpoint.h: one file that holds everything to evaluate or resume a run.
//
// Layout (all integers little-endian):
//   magic      8 bytes   "CIFARTRN"
//   version    u32       kCheckpointFormatVersion
//   header_len u32       length of the JSON header that follows
//   header     JSON      model name and options, epoch, step, accuracies,
//                        normalisation, class names, the resolved config
//                        (TOML), the LibTorch version, the payload's length
//   payload    bytes     a LibTorch archive: "model" (parameters and buffers
//                        under their Python names) and "optimizer" (SGD
//                        momentum buffers)
// The header is checked before any of the payload is touched, so a file that
// is empty, truncated, foreign or from a newer cifar-train is refused with a
// message saying which. Files are written atomically: to a temporary file in
// the same directory, flushed to disk, then renamed over the old one.
#pragma once

#include <torch/torch.h>

#include <cstdint>
#include <filesystem>
#include <nlohmann/json.hpp>
#include <span>
#include <string>
#include <vector>

#include "cifar/data.h"
#include "cifar/models.h"

namespace cifar {

class Sgd;

inline constexpr char kCheckpointMagic[8] = {'C', 'I', 'F', 'A', 'R', 'T', 'R', 'N'};
inline constexpr uint32_t kCheckpointFormatVersion = 1;
// A header larger than this is not a cifar-train checkpoint.
inline constexpr uint32_t kMaxHeaderBytes = 16 * 1024 * 1024;

struct CheckpointInfo {
  std::string model = "net";
  std::string stem = "cifar";  // ResNet stem
  int64_t num_classes = 10;
  int64_t epoch = 0;          // epochs completed
  int64_t step_in_epoch = 0;  // > 0 when written mid-epoch (after an interrupt)
  int64_t global_step = 0;
  double test_accuracy = -1;  // of this epoch, -1 when not measured
  double best_accuracy = -1;
  Normalization normalization;
  std::vector<std::string> class_names;
  std::string config_toml;  // the resolved settings of the run
  std::string libtorch_version;

  ModelOptions model_options() const;
};

nlohmann::json to_json(const CheckpointInfo& info);
CheckpointInfo checkpoint_info_from_json(const nlohmann::json& j, const std::string& source);

// The parsed front of a checkpoint file: the header and where the payload is.
struct CheckpointHeader {
  uint32_t version = 0;
  CheckpointInfo info;
  size_t payload_offset = 0;
  size_t payload_size = 0;
};

// Checks magic, version, lengths and header fields of a whole file held in
// memory; throws std::runtime_error naming `source` and the problem.
CheckpointHeader parse_checkpoint_header(std::span<const uint8_t> bytes, const std::string& source);

// Serialises model (+ optimizer, when given) and info into checkpoint bytes.
std::string encode_checkpoint(const CheckpointInfo& info, ClassifierImpl& model,
                              const Sgd* optimizer);

// Writes bytes to path atomically (temporary file, fsync, rename).
void write_file_atomically(const std::filesystem::path& path, const std::string& bytes);

void save_checkpoint(const std::filesystem::path& path, const CheckpointInfo& info,
                     ClassifierImpl& model, const Sgd* optimizer);

// A checkpoint read back: its info and a model built from it, on the CPU.
struct LoadedCheckpoint {
  CheckpointInfo info;
  Classifier model;
  std::string bytes;  // the file, kept so the optimizer can be restored later
  CheckpointHeader header;
};

LoadedCheckpoint load_checkpoint(const std::filesystem::path& path);

// Restores the optimizer's state from a loaded checkpoint.
void load_optimizer_state(const LoadedCheckpoint& checkpoint, Sgd& optimizer);

// Checks that a file can be created in path's directory (creating the
// directory if needed), before any training starts.
void ensure_writable(const std::filesystem::path& path);

}  // namespace cifar
