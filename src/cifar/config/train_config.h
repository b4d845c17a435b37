// train_config.h: cifar-train's settings, as typed values.
//
// TrainConfig holds every setting of a training run; its options (long name,
// which is also its key in a TOML config file, group, help text, default and
// allowed values) are declared once, in the option tables
// (option_tables.h), from which the command line, the checks and the saved
// config.toml derive (config.h). Fields are typed: enums for the recipe, the
// model's stem, the schedule and mixed precision, a parsed device request;
// strings are parsed once, at the edge. Only the job's top (train/train.h)
// sees the whole of it: its parts take the small options struct they use.
#pragma once

#include <array>
#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "cifar/config/step_settings.h"
#include "cifar/core/types.h"
#include "cifar/data/dataset.h"
#include "cifar/model/models.h"
#include "cifar/optim/lr_schedule.h"
#include "cifar/optim/optimizer_registry.h"
#include "cifar/platform/device.h"

namespace cifar {

struct TrainConfig {
  // How the job trains: which parameters go to which optimiser at which
  // rates, the augmentation and the loss; a name in resolve/recipe.h's registry,
  // which checks it (its first entry is the default).
  std::string recipe = "classic";
  // Model: empty means "net" (the recipe's network for airbench94), or the
  // checkpoint's model when resuming.
  std::string model;
  // Unset: the --init-weights file's metadata, else (or for a fresh model) cifar.
  std::optional<ResNetStem> stem;
  // Fine-tuning from --init-weights (train/fine_tune.h): train the head only
  // (the body's tensors, batch-norm statistics included, kept as loaded), or
  // the body at this fraction of each rate; or keep the body's modules
  // before the one named here as loaded and train from it on (model_body.h).
  bool freeze_body = false;
  double body_lr_scale = 1.0;
  std::string train_from;
  // Every batch norm's momentum (timm's --bn-momentum); 0: the model's own.
  double bn_momentum = 0;
  // Start from the model's ImageNet weights (model_registry.h's PretrainedWeights).
  bool pretrained = false;
  // Data. The apps resolve --data, else $CIFAR10_DIR, else the default folder.
  std::string data_dir = "data/cifar-10-batches-bin";
  std::string dataset = "auto";       // --dataset: auto, or a kind (data/dataset.h)
  LabelSet labels = LabelSet::kFine;  // CIFAR-100's label set
  bool skip_bad_images = false;       // image folders: skip unreadable files, naming them
  int64_t train_limit = 0;            // use only N training images (0: all; data/splits.h)
  int64_t test_limit = 0;             // evaluate on N test images only (0: all)
  int64_t val_split = 0;  // hold out N training images for validation (best.pt chosen on them)
  // The side of the images trained on, px (0: the data set's own); a checkpoint keeps it.
  int64_t image_size = 0;
  // How an image is made image_size square (core/image_prep.h): "auto" (the
  // data set's: CIFAR whole, a folder torchvision's centre crop) or a mode,
  // and the crop's share (0: the data set's); a checkpoint keeps both.
  std::string crop_mode = "auto";
  double crop_pct = 0;
  // Augmenting an image folder: random resized crops' least share of the
  // image's area (torchvision's RandomResizedCrop scale, 0.08 to 1); 0: no
  // resized crops, the recipe's translations of the prepared images.
  double crop_scale = 0.08;
  bool augment = false;
  // Per-epoch training image sizes, px (data/resolution.h); empty: the images' own.
  std::vector<int64_t> resolution_schedule;
  // Device and threads
  DeviceRequest device;  // auto
  int64_t threads = 0;   // 0: chosen at run time (see cpu_plan.h)
  // Optimisation (defaults: the PyTorch tutorial)
  int64_t epochs = 2;
  // --time: minutes of wall time the whole run fits its epochs to (the
  // schedule with them, train/time_budget.h); 0: off, --epochs decides.
  double time_minutes = 0;
  // --steps: the least optimiser steps a run takes (more epochs than
  // --epochs when they take fewer, resolve/run_data.h); 0: off.
  int64_t steps = 0;
  int64_t batch_size = 4;
  // A name in optim/optimizer_registry.h's table (the classic recipe's optimiser).
  std::string optimizer = optimizer_registry().front().name;
  double lr = 0.001;
  double momentum = 0.9;
  bool nesterov = false;
  double weight_decay = 0.0;
  // The numbers optimisers declare (optimizer_registry.h: --beta1, --beta2,
  // --eps), by name; unset: the chosen optimiser's default.
  std::map<std::string, std::optional<double>> optimizer_args = optimizer_args_unset();
  Schedule schedule = Schedule::kConstant;
  double warmup_epochs = 0.0;
  StepSettings step;  // what the step reads as given (step_settings.h): --label-smoothing
  double ema = 0.0;   // --ema: the decay of the weights' moving average (train/ema.cpp); 0: off
  uint64_t seed = 0;
  // Speed
  AmpMode amp = AmpMode::kAuto;
  bool channels_last = false;
  bool cuda_graph = false;
  bool cudnn_benchmark = true;
  bool tf32 = true;
  // Repeatable runs: a fixed thread count, cuDNN benchmark off,
  // deterministic algorithms only (train.cpp; CUBLAS_WORKSPACE_CONFIG, the app).
  bool deterministic = false;
  // 100: on the CPU, much larger evaluation batches of ResNet-18 run slower
  // (the allocator maps and zeroes each large activation afresh; figures in
  // docs/benchmarks.md); the net does not care.
  int64_t eval_batch_size = 100;
  int64_t eval_every = 1;  // evaluate after every N-th epoch (the last epoch always)
  int64_t tta = 0;         // test-time augmentation level (infer/evaluate.h)
  // Outputs
  std::string checkpoint;    // default: <model>.pt (<folder>-<model>.pt for an image folder)
  std::string run_dir;       // default: runs/<date>-<time>-<model>
  std::string resume;        // a checkpoint to continue from (not saved in config.toml)
  bool overwrite = false;    // replace an earlier run's results in run_dir (not saved)
  std::string init_weights;  // start from these weights (.safetensors/.pt)
  // The SHA-256 (hex, or its first 8 or more digits) the --init-weights file
  // must have; a run records its file's, so that a rerun of its config.toml
  // refuses a file that has changed since.
  std::string init_weights_sha256;
  // --mean and --std, with --init-weights only: the normalisation its weights
  // were trained with, over what the file records (a torchvision .pth records
  // nothing).
  std::optional<std::array<double, 3>> mean;
  std::optional<std::array<double, 3>> std;
  // The --config file the settings were read from (the app's option, not in
  // the tables): an input no output may replace. Empty: none.
  std::string config_file;
  double log_interval_s = 10;
  bool tensorboard = true;  // event files in the run folder
  // Several processes (torchrun): how long start-up and each exchange may wait.
  double dist_timeout_s = 300;

  bool operator==(const TrainConfig&) const = default;
};

}  // namespace cifar
