// tool_configs.h: the options of the tools that work on a trained model:
// cifar-eval (EvalConfig), cifar-predict (PredictConfig) and cifar-export
// (ExportConfig), as their command lines parse them (option_tables.h declares
// each option). resolve/inference.h turns each into the run infer/ and io/
// carry out; infer/ and io/ never see these structs.
//
// The model they share (ModelInput, the "Model" option group): exactly one
// file gives it: a checkpoint written by cifar-train (--checkpoint), which
// says everything about the model itself, or a weights file (--weights:
// .safetensors, .pt, .pth, .ckpt, .bin, e.g. saved in Python), for which --model, --stem,
// --mean, --std, --image-size, --crop-mode and --crop-pct fill in what its
// metadata does not say (and override what it says: the images' options with
// a warning, io/weights_images.h). The fields are parsed values
// (option_groups.h parses the text).
#pragma once

#include <array>
#include <cstdint>
#include <filesystem>
#include <optional>
#include <string>
#include <vector>

#include "cifar/core/types.h"
#include "cifar/data/cifar100.h"
#include "cifar/data/image_split.h"
#include "cifar/model/models.h"
#include "cifar/platform/device.h"
#include "cifar/platform/machine.h"

namespace cifar {

using Channels = std::array<double, 3>;  // red, green, blue

struct ModelInput {
  std::string checkpoint;
  std::string weights;
  std::optional<std::string> model;  // a name make_model knows (checked when parsed)
  std::optional<ResNetStem> stem;
  std::optional<Channels> mean;  // --mean and --std come together
  std::optional<Channels> std;   // each > 0
  // With --weights: the images the model takes, over what the file records
  // (io/weights_images.h); 0, "auto" and 0: the file's.
  int64_t image_size = 0;
  std::string crop_mode = "auto";
  double crop_pct = 0;

  bool operator==(const ModelInput&) const = default;
};

// mean and std as one Normalization; none when neither is given.
inline std::optional<Normalization> normalization(const ModelInput& input) {
  if (!input.mean || !input.std) return std::nullopt;
  return Normalization{*input.mean, *input.std};
}

// cifar-eval: the model evaluated on a split of a data set.
struct EvalConfig : ModelInput {
  std::string data_dir = "data/cifar-10-batches-bin";
  std::string dataset = "auto";  // --dataset: auto, or a kind (data/dataset.h)
  // CIFAR-100's label set: --labels, else the one the model was trained on
  // (resolve_eval), else fine.
  std::optional<LabelSet> labels;
  bool skip_bad_images = false;  // image folders: skip unreadable files, naming them
  // --split: the data set's split to evaluate, test (an image folder
  // without test/: its val/), val or train. A plain folder of class folders
  // (DIR/<class>/...) is evaluated whole.
  Split split = Split::kTest;
  DeviceRequest device;
  AmpMode amp = AmpMode::kOff;
  int64_t batch_size = 100;  // see TrainConfig::eval_batch_size
  int64_t tta = -1;          // -1: the level the checkpoint was trained for
  int64_t threads = 0;       // CPU threads; 0: chosen at run time (resolve/machine.h)
  bool json = false;         // one JSON object instead of tables
  // Not an option: a progress bar on a terminal when unset; the app sets
  // false for --quiet.
  std::optional<bool> progress_bar;
  // Not an option: the machine's cores and variables (the app's to say).
  MachineEnv machine;
  // Not an option: where a read-only image folder's cache goes (the app's).
  std::filesystem::path spare_cache_dir;
};

// cifar-predict: the model, the images and how to report them.
struct PredictConfig : ModelInput {
  std::vector<std::string> images;  // files, and folders walked recursively (infer/image_list.h)
  DeviceRequest device;             // --device: auto (cuda:0 when usable), cpu, cuda:N
  int64_t top_k = 1;                // classes reported per image
  int64_t batch_size = 256;
  int64_t threads = 0;  // CPU threads; 0: chosen at run time (resolve/machine.h)
  bool logits = false;  // with --json: each image's raw logits
  int64_t tta = -1;     // --tta; -1: the checkpoint's level
  bool json = false;    // one JSON array instead of lines
  std::string csv;      // --csv FILE: one row per image (infer/predict.h)
  MachineEnv machine;   // not an option: the machine's cores and variables (the app's to say)
  std::filesystem::path spare_cache_dir;  // not an option: as EvalConfig's
};

// cifar-export: the model and where its weights go.
struct ExportConfig : ModelInput {
  std::string out;  // .safetensors, .pt or .pth
};

}  // namespace cifar
