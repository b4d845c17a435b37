// checkpoint.h: one file that holds everything to evaluate or resume a run.
//
// Layout, format version 2 (all integers little-endian):
//   magic      8 bytes   "CIFARTRN"
//   version    u32       kCheckpointFormatVersion
//   header_len u32       length of the JSON header that follows
//   header     JSON      model name and options, epoch, step, accuracies,
//                        normalisation, class names, the resolved config
//                        (TOML), the LibTorch version, the run's identity
//                        (run_id), the payload's length
//   payload    bytes     a LibTorch archive: "model" (parameters and buffers
//                        under their Python names), "optimizer" (the
//                        training state: the optimisers' momentum buffers,
//                        one archive per parameter group when there are
//                        several, and under --amp fp16 the loss scale)
//   checksum   32 bytes  SHA-256 of every byte before it (see checksum.h)
// The checksum is checked on every load before anything else is trusted, so
// one changed byte anywhere (weights, momentum, JSON header, version field)
// is refused with one message saying the file is damaged. Version 1 files
// (the same without the checksum) are still read, with a warning that they
// cannot be verified. A version field that is not 1 or 2 is "newer" only when
// it is exactly 3 and the file is not a damaged version-2 file; anything else
// is "damaged or not a cifar-train checkpoint". Files are written atomically
// (see file_io.h).
//
// run_id identifies the run that wrote the file: the run folder's absolute
// path, the UTC start time and the process id. A resumed run keeps the
// run_id of the checkpoint it resumes, so cifar-train can tell a checkpoint
// of this run from one of another run that it is about to replace (run_dir.h).
// Empty in version-1 files.
#pragma once

#include <torch/torch.h>

#include <cstdint>
#include <filesystem>
#include <nlohmann/json.hpp>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include "cifar/core/file_io.h"  // write_file_atomically, ensure_writable
#include "cifar/core/image_prep.h"
#include "cifar/core/types.h"  // Normalization
#include "cifar/model/models.h"

namespace cifar {

class Stateful;

inline constexpr char kCheckpointMagic[8] = {'C', 'I', 'F', 'A', 'R', 'T', 'R', 'N'};
inline constexpr uint32_t kCheckpointFormatVersion = 2;
// Version 1: the same layout without the trailing checksum.
inline constexpr uint32_t kUncheckedFormatVersion = 1;
inline constexpr size_t kChecksumBytes = 32;
// A file larger than this is not a cifar-train checkpoint.
inline constexpr uint64_t kMaxCheckpointBytes = uint64_t{4} << 30;
// An image side larger than this is not one a checkpoint was trained at.
inline constexpr int64_t kMaxImageSide = 1 << 16;
// A header larger than this is not a cifar-train checkpoint.
inline constexpr uint32_t kMaxHeaderBytes = 16 * 1024 * 1024;

// The figures of the steps an epoch ran before an interrupt, summed over
// the processes: a resumed epoch adds them to its own, so that its line and
// metrics row cover the whole epoch.
struct EpochSoFar {
  int64_t images = 0;
  double loss_sum = 0;  // the loss summed over those images
  double correct = 0;   // images classified right
  double seconds = 0;   // training time
  int64_t skipped_steps = 0;
  double last_lr = 0;  // the learning rate of the last of those steps

  bool operator==(const EpochSoFar&) const = default;
};

struct CheckpointInfo {
  std::string model = "net";
  std::string stem = "cifar";  // ResNet stem
  int64_t num_classes = 10;
  int64_t epoch = 0;          // epochs completed
  int64_t step_in_epoch = 0;  // > 0 when written mid-epoch (after an interrupt)
  EpochSoFar epoch_so_far;    // mid-epoch: the figures of its first step_in_epoch steps
  int64_t global_step = 0;
  double test_accuracy = -1;  // of this epoch, -1 when not measured
  double best_accuracy = -1;
  Normalization normalization;
  std::vector<std::string> class_names;
  // The data set it was trained on (DatasetInfo::id: cifar10, cifar100,
  // cifar100-coarse, folder); absent in older files: cifar10.
  std::string dataset = "cifar10";
  std::string config_toml;  // the resolved settings of the run
  std::string libtorch_version;
  std::string run_id;      // the run that wrote it (see above); empty in version 1
  int64_t world_size = 1;  // processes that trained it (the global batch is the same for any)
  // The test-time augmentation it was trained to be evaluated with: 0 none,
  // 1 mirror, 2 mirror + 1-pixel translates (evaluate.h); absent in older files: 0.
  int64_t tta = 0;
  // The training split its steps are counted in: the number of images and
  // the SHA-256 of their bytes and labels (train_data_fingerprint), which a
  // mid-epoch resume checks; absent in older files: -1 and "" (unknown).
  int64_t train_images = -1;
  std::string train_fingerprint;
  // The images it takes (core/types.h): the data set's, at the run's
  // --image-size; absent in older files: CIFAR's 3 x 32 x 32.
  ImageShape image{.channels = 3, .image_size = kCifarImageSize};
  // How an image of any shape is made one of those (core/image_prep.h);
  // absent in older files: the whole image resized (kWholeImage).
  ImagePrep prep;

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
  bool verified = false;  // the checksum matched (false for version 1 files)
};

// Checks magic, version, checksum, lengths and header fields of a whole file
// held in memory; throws std::runtime_error naming `source` and the problem
// (with the word "damaged" whenever the bytes are not what was written).
// A weights file (safetensors, torch.save's ZIP) is named as one, with
// `weights_option`, the option of the caller's tool that takes it
// ("--weights", "--init-weights"; empty: "a weights option").
CheckpointHeader parse_checkpoint_header(std::span<const uint8_t> bytes, const std::string& source,
                                         const std::string& weights_option = "");

// Serialises model (+ optimizer, when given) and info into checkpoint bytes.
std::string encode_checkpoint(const CheckpointInfo& info, ClassifierImpl& model,
                              const Stateful* optimizer);

void save_checkpoint(const std::filesystem::path& path, const CheckpointInfo& info,
                     ClassifierImpl& model, const Stateful* optimizer);

// A checkpoint read back: its info and a model built from it, on the CPU.
struct LoadedCheckpoint {
  CheckpointInfo info;
  Classifier model;
  std::string bytes;  // the file, kept so the optimizer can be restored later
  CheckpointHeader header;
  // False for a weights file that does not name its classes (info.class_names
  // are then made up for its outputs): evaluation takes the data's names.
  bool class_names_known = true;
  // False for a weights file, which records no test-time augmentation level
  // (info.tta is then 0); a checkpoint, given as either, records its own.
  bool tta_known = true;
  // False for a weights file that records no normalisation and was given
  // none (--mean, --std): info.normalization is then the default assumed.
  bool normalization_known = true;
};

// Reads, verifies and loads a checkpoint; a version-1 file loads with a
// warning (spdlog::warn) that it cannot be verified. `weights_option`: as
// parse_checkpoint_header's.
LoadedCheckpoint load_checkpoint(const std::filesystem::path& path,
                                 const std::string& weights_option = "");

// Reads only the front of a checkpoint (magic, version, JSON header), without
// the payload and without verifying the checksum: cheap, for describing a
// file (run_dir.h), never for loading one. nullopt when the file does not
// exist; throws std::runtime_error when it is not a readable checkpoint.
std::optional<CheckpointInfo> peek_checkpoint_info(const std::filesystem::path& path);

// Restores the optimizer's state from a loaded checkpoint.
void load_optimizer_state(const LoadedCheckpoint& checkpoint, Stateful& optimizer);

}  // namespace cifar
