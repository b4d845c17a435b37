// config.h: every setting of the four tools, declared once.
//
// Each option (its long name, which is also its key in a TOML config file,
// its group, help text, default and allowed values) is written down once in
// config.cpp, in groups the tools share: "Model" (the trained model that
// cifar-eval, cifar-predict and cifar-export load), "Data", "Device and
// speed", "Evaluation", and cifar-train's own. From those tables come the
// CLI11 declarations (add_*_options), the checks (validate: the same ranges a
// command line is held to, for callers that fill a config in code), and the
// resolved settings written to a run folder (to_toml), which read back with
// --config. Fields are typed: enums for the model's stem, the schedule and
// mixed precision, a parsed device request, checked model names and
// normalisation channels; strings are parsed once, at the edge.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "cifar/core/types.h"
#include "cifar/model/models.h"
#include "cifar/platform/device.h"
#include "cifar/train/model_input.h"
#include "cifar/train/optim.h"
#include "cifar/train/predict.h"
#include "cifar/train/setting_role.h"

namespace CLI {
class App;
}

namespace cifar {

// How the job trains: which parameters go to which optimiser at which rates,
// the augmentation and the loss (see train/recipe.h).
//   classic     SGD (--lr, --momentum, ...) on every parameter, --schedule,
//               --augment: the tutorial's way, for net and resnet18
//   airbench94  Keller Jordan's airbench94_muon: Muon on the conv filters,
//               Nesterov SGD on biases and head, linear decay, alternating
//               flip + 2-pixel reflect translate, label smoothing 0.2
enum class RecipeName { kClassic, kAirbench94 };
RecipeName parse_recipe(const std::string& text);  // UsageError when unknown
std::string to_string(RecipeName recipe);

struct TrainConfig {
  RecipeName recipe = RecipeName::kClassic;
  // Model: empty means "net" (the recipe's network for airbench94), or the
  // checkpoint's model when resuming.
  std::string model;
  ResNetStem stem = ResNetStem::kCifar;
  // Data. The apps resolve --data, else $CIFAR10_DIR, else the default folder.
  std::string data_dir = "data/cifar-10-batches-bin";
  int64_t train_limit = 0;  // use only the first N training images (0: all)
  int64_t test_limit = 0;   // evaluate on the first N test images only (0: all)
  int64_t val_split = 0;    // hold out N training images for validation (best.pt chosen on them)
  bool augment = false;
  // Device and threads
  DeviceRequest device;  // auto
  int64_t threads = 0;   // 0: chosen at run time (see cpu_plan.h)
  // Optimisation (defaults: the PyTorch tutorial)
  int64_t epochs = 2;
  int64_t batch_size = 4;
  double lr = 0.001;
  double momentum = 0.9;
  bool nesterov = false;
  double weight_decay = 0.0;
  Schedule schedule = Schedule::kConstant;
  double warmup_epochs = 0.0;
  double label_smoothing = 0.0;
  uint64_t seed = 0;
  // Speed
  AmpMode amp = AmpMode::kOff;
  bool channels_last = false;
  bool cuda_graph = false;
  bool cudnn_benchmark = true;
  bool tf32 = true;
  // Repeatable runs: a fixed thread count (no tuning), cuDNN benchmark off,
  // deterministic algorithms only (train.cpp; CUBLAS_WORKSPACE_CONFIG, the app).
  bool deterministic = false;
  // 100: on the CPU, batches of 1000 ResNet-18 images take 1.8x as long (the
  // allocator maps and zeroes each 262 MB activation afresh); the net does not care.
  int64_t eval_batch_size = 100;
  int64_t eval_every = 1;  // evaluate after every N-th epoch (the last epoch always)
  int64_t tta = 0;         // test-time augmentation: 0 none, 1 mirror, 2 mirror + translates
  // Outputs
  std::string checkpoint;    // default: <model>.pt
  std::string run_dir;       // default: runs/<date>-<time>-<model>
  std::string resume;        // a checkpoint to continue from (not saved in config.toml)
  bool overwrite = false;    // replace an earlier run's results in run_dir (not saved)
  std::string init_weights;  // start from these weights (.safetensors/.pt; not saved)
  double log_interval_s = 10;
  bool tensorboard = true;  // event files in the run folder
  // Several processes (torchrun): how long start-up and each exchange may wait.
  double dist_timeout_s = 300;

  bool operator==(const TrainConfig&) const = default;
};

// Declares every TrainConfig option on `app`, bound to `config` (whose current
// values are the defaults --help shows); --resume, --init-weights and
// --overwrite too. --config (app/config_file.h), --data's environment
// fallback and the logging flags are the app's.
void add_train_options(CLI::App& app, TrainConfig& config);

// Throws UsageError naming the option, the offending value and the allowed
// range; the same checks the command line applies, plus those that relate two
// options (--nesterov needs --momentum), and text that config.toml cannot
// hold (not UTF-8), so that such a run stops before it starts.
void validate(const TrainConfig& config);

// The settings as TOML that --config reads back (keys are the long option
// names, under a comment per group); --resume, --init-weights and --overwrite
// are left out. UsageError naming the option for text that is not UTF-8.
std::string to_toml(const TrainConfig& config);

// Each key to_toml writes, in table order, with what it is to the run
// (setting_role.h): what --resume and several processes compare.
std::vector<std::pair<std::string, SettingRole>> train_setting_roles();

// cifar-eval: a checkpoint or weights file (ModelInput, the "Model" group
// that cifar-predict and cifar-export share) evaluated on the test split.
struct EvalConfig : ModelInput {
  std::string data_dir = "data/cifar-10-batches-bin";
  DeviceRequest device;
  AmpMode amp = AmpMode::kOff;
  int64_t batch_size = 100;  // see TrainConfig::eval_batch_size
  int64_t tta = -1;          // -1: the level the checkpoint was trained for
  bool json = false;         // one JSON object instead of tables
  // Not an option: a progress bar on a terminal when unset; the app sets
  // false for --quiet.
  std::optional<bool> progress_bar;
};

// cifar-predict: the model, the images and how to report them.
struct PredictConfig : ModelInput {
  std::vector<std::string> images;
  PredictOptions predict;  // --top-k, --batch-size, --logits
  bool json = false;       // one JSON array instead of lines
};

// cifar-export: the model and where its weights go.
struct ExportConfig : ModelInput {
  std::string out;  // .safetensors, .pt or .pth
};

void add_eval_options(CLI::App& app, EvalConfig& config);
void add_predict_options(CLI::App& app, PredictConfig& config);
void add_export_options(CLI::App& app, ExportConfig& config);

// The command line's checks for a config filled in code, and validate(ModelInput).
void validate(const EvalConfig& config);
void validate(const PredictConfig& config);
void validate(const ExportConfig& config);

}  // namespace cifar
