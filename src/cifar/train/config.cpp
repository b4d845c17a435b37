// config.cpp: the option table, and the CLI, checks and TOML derived from it.
//
// train_options() (and eval_options()) are the one place an option is
// written down. Each hands every option, with its field, to a visitor
// (option_visitors.h): OptionDeclarer declares it on a CLI11 app,
// RangeChecker checks a filled-in config, TomlWriter writes it.
#include "cifar/train/config.h"

#include <fmt/format.h>

#include <CLI/CLI.hpp>
#include <limits>

#include "cifar/core/errors.h"
#include "cifar/train/option_visitors.h"

namespace cifar {
namespace {
using namespace options;

// --- The table ---------------------------------------------------------------------

std::string model_of(const std::string& text) {
  check_model_name(text);
  return text;
}
std::string same(const std::string& text) {
  return text;
}
std::string stem_text(const ResNetStem& stem) {
  return stem == ResNetStem::kCifar ? "cifar" : "imagenet";
}
std::string schedule_text(const Schedule& s) {
  switch (s) {
    case Schedule::kConstant:
      return "constant";
    case Schedule::kStep:
      return "step";
    case Schedule::kCosine:
      return "cosine";
    case Schedule::kOneCycle:
      return "onecycle";
  }
  return "constant";
}
std::string device_text(const DeviceRequest& d) {
  return d.text;
}
std::string amp_text(const AmpMode& a) {
  return to_string(a);
}
DeviceRequest device_of(const std::string& text) {
  return parse_device(text);
}

std::string recipe_text(const Recipe& r) {
  return to_string(r);
}

// Config is TrainConfig, or const TrainConfig for the visitors that only read.
template <class Config, class V>
void train_options(Config& c, V&& v) {
  v.parsed(Opt{"--recipe", "Model",
               "classic (SGD on all parameters) or airbench94 (Muon + SGD, the speedrun's "
               "schedule and augmentation)"},
           c.recipe, Parsed<Recipe>{parse_recipe, recipe_text});
  v.parsed(Opt{"-m,--model", "Model",
               "net or resnet18 (default: net, or the checkpoint's with --resume)"},
           c.model, Parsed<std::string>{model_of, same});
  v.parsed(Opt{"--stem", "Model", "ResNet stem: cifar (3x3, no pool) or imagenet (7x7 + pool)"},
           c.stem, Parsed<ResNetStem>{parse_stem, stem_text});
  v.text(Opt{"--data", "Data",
             "CIFAR-10 binary folder (default: $CIFAR10_DIR, else data/cifar-10-batches-bin)"},
         c.data_dir);
  v.number(Opt{"--train-limit", "Data", "Train on the first N images only (0: all)"}, c.train_limit,
           Range<int64_t>{0, kMaxCount});
  v.number(Opt{"--val-split", "Data",
               "Hold out N training images (chosen by --seed) as a validation set; best.pt is "
               "chosen on it (0: none, and best.pt is chosen on the test set)"},
           c.val_split, Range<int64_t>{0, kMaxCount});
  v.flag(Opt{"--augment", "Data", "Random crop (4-pixel padding) and horizontal flip"}, c.augment);
  v.parsed(Opt{"-d,--device", "Device", "auto, cpu, cuda or cuda:N (falls back to the CPU)"},
           c.device, Parsed<DeviceRequest>{device_of, device_text});
  v.number(Opt{"--threads", "Device", "CPU threads for intra-op work (0: chosen at run time)"},
           c.threads, Range<int64_t>{0, 4096});
  v.number(Opt{"-e,--epochs", "Optimisation", "Epochs to train (in total, when resuming)"},
           c.epochs, Range<int64_t>{1, 1'000'000});
  v.number(Opt{"-b,--batch-size", "Optimisation", "Training batch size"}, c.batch_size,
           Range<int64_t>{1, kMaxCount});
  v.number(Opt{"--lr", "Optimisation", "Peak learning rate"}, c.lr,
           Range<double>{0, kMaxReal, true});
  v.number(Opt{"--momentum", "Optimisation", "SGD momentum"}, c.momentum,
           Range<double>{0, 1, false, true});
  v.flag(Opt{"--nesterov", "Optimisation", "Nesterov momentum"}, c.nesterov);
  v.number(Opt{"--weight-decay", "Optimisation", "L2 weight decay"}, c.weight_decay,
           Range<double>{0, kMaxReal});
  v.parsed(Opt{"--schedule", "Optimisation", "constant, step, cosine or onecycle"}, c.schedule,
           Parsed<Schedule>{parse_schedule, schedule_text});
  v.number(Opt{"--warmup-epochs", "Optimisation", "Linear warm-up length in epochs"},
           c.warmup_epochs, Range<double>{0, 1'000'000});
  v.number(Opt{"--label-smoothing", "Optimisation", "Cross-entropy label smoothing"},
           c.label_smoothing, Range<double>{0, 1, false, true});
  v.number(Opt{"--seed", "Optimisation", "Seed for initialisation, shuffling and augmentation"},
           c.seed, Range<uint64_t>{0, std::numeric_limits<uint64_t>::max()});
  v.parsed(Opt{"--amp", "Speed", "Mixed precision: bf16 or off"}, c.amp,
           Parsed<AmpMode>{parse_amp, amp_text});
  v.flag(
      Opt{"--channels-last", "Speed",
          "NHWC images and weights (CPU: slower at batch <= 32, within ~10% of NCHW at 128-256)"},
      c.channels_last);
  v.flag(Opt{"--cuda-graph", "Speed", "Capture the training step in a CUDA graph, GPU only"},
         c.cuda_graph);
  v.flag(Opt{"--cudnn-benchmark", "Speed", "Let cuDNN time its algorithms"}, c.cudnn_benchmark);
  v.flag(Opt{"--tf32", "Speed", "TF32 matrix products on GPUs that have them"}, c.tf32);
  v.number(Opt{"--eval-batch-size", "Speed", "Batch size for evaluation"}, c.eval_batch_size,
           Range<int64_t>{1, kMaxCount});
  v.number(Opt{"--eval-every", "Speed", "Evaluate after every N-th epoch (the last epoch always)"},
           c.eval_every, Range<int64_t>{1, kMaxCount});
  v.number(Opt{"--tta", "Speed",
               "Test-time augmentation: 0 none, 1 mirror, 2 mirror + two 1-pixel translates"},
           c.tta, Range<int64_t>{0, 2});
  v.text(Opt{"-o,--checkpoint", "Output", "Where the trained model goes (default: <model>.pt)"},
         c.checkpoint);
  v.text(Opt{"--run-dir", "Output",
             "Folder for config.toml, metrics.csv, last.pt and best.pt (default: runs/...)"},
         c.run_dir);
  v.number(Opt{"--log-interval", "Output",
               "Seconds between progress lines when stderr is not a terminal"},
           c.log_interval_s, Range<double>{0, 1'000'000, true});
  v.flag(Opt{"--tensorboard", "Output",
             "TensorBoard event files in the run folder (view: tensorboard --logdir runs/)"},
         c.tensorboard);
  v.number(Opt{"--dist-timeout", "Several processes",
               "Seconds start-up and each exchange may wait for the other processes"},
           c.dist_timeout_s, Range<double>{0, 86'400, true});
}

template <class Config, class V>
void eval_options(Config& c, V&& v) {
  v.text(Opt{"-c,--checkpoint", "Input", "Checkpoint written by cifar-train"}, c.checkpoint);
  v.text(Opt{"-w,--weights", "Input",
             "Weights file (.safetensors, .pt, .pth, e.g. a Python state_dict) instead of a "
             "checkpoint"},
         c.weights);
  v.text(
      Opt{"-m,--model", "Input", "With --weights: net or resnet18 (default: the file's metadata)"},
      c.model);
  v.text(
      Opt{"--stem", "Input", "With --weights: cifar or imagenet (default: metadata, else cifar)"},
      c.stem);
  v.text(Opt{"--mean", "Input", kMeanHelp}, c.mean);
  v.text(Opt{"--std", "Input", kStdHelp}, c.std);
  v.text(Opt{"--data", "Input",
             "CIFAR-10 binary folder (default: $CIFAR10_DIR, else data/cifar-10-batches-bin)"},
         c.data_dir);
  v.parsed(Opt{"-d,--device", "Device", "auto, cpu, cuda or cuda:N (falls back to the CPU)"},
           c.device, Parsed<DeviceRequest>{device_of, device_text});
  v.number(Opt{"-b,--batch-size", "Speed", "Evaluation batch size"}, c.batch_size,
           Range<int64_t>{1, kMaxCount});
  v.number(Opt{"--tta", "Speed",
               "Test-time augmentation: 0 none, 1 mirror, 2 mirror + translates (default: the "
               "checkpoint's)"},
           c.tta, Range<int64_t>{-1, 2});
  v.parsed(Opt{"--amp", "Speed", "Mixed precision: bf16 or off"}, c.amp,
           Parsed<AmpMode>{parse_amp, amp_text});
}

}  // namespace

Recipe parse_recipe(const std::string& text) {
  if (text == "classic") return Recipe::kClassic;
  if (text == "airbench94") return Recipe::kAirbench94;
  throw UsageError(fmt::format("unknown --recipe '{}': choose classic or airbench94", text));
}

std::string to_string(Recipe recipe) {
  return recipe == Recipe::kAirbench94 ? "airbench94" : "classic";
}

void add_train_options(CLI::App& app, TrainConfig& config) {
  train_options(config, OptionDeclarer{app});
  app.add_flag("--overwrite", config.overwrite,
               "Replace the results of an earlier run in --run-dir (config.toml, metrics.csv, "
               "last.pt, best.pt) instead of refusing to start")
      ->group("Output");
  app.add_option("--init-weights", config.init_weights,
                 "Start from these weights (.safetensors, .pt, .pth, e.g. saved in Python) "
                 "instead of a fresh model")
      ->group("Model");
  app.add_option("--resume", config.resume, "Continue training from this checkpoint")
      ->group("Output");
}

void validate(const TrainConfig& config) {
  train_options(config, RangeChecker{});
  if (!config.init_weights.empty() && !config.resume.empty()) {
    throw UsageError("--init-weights and --resume both say where the model comes from: give one");
  }
  if (config.nesterov && config.momentum == 0) {
    throw UsageError(
        "--nesterov needs --momentum above 0 (Nesterov momentum without momentum is plain SGD)");
  }
}

std::string to_toml(const TrainConfig& config) {
  TomlWriter writer{"# cifar-train settings (read back with --config)\n"};
  train_options(config, writer);
  return writer.out;
}

void add_eval_options(CLI::App& app, EvalConfig& config) {
  eval_options(config, OptionDeclarer{app});
  app.get_option("--weights")->excludes(app.get_option("--checkpoint"));
}

}  // namespace cifar
