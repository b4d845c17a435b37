// config.cpp: the option tables of the four tools, and the CLI, checks and
// TOML derived from them.
//
// Each option is written down once, in a group function (model_group,
// data_group, device_group, tta_option) or a tool's table (train_options,
// eval_options, predict_options, export_options) that calls the groups it
// shares. A table hands every option, with its field, to a visitor
// (option_visitors.h): OptionDeclarer declares it on a CLI11 app,
// RangeChecker checks a filled-in config, TomlWriter writes it.
#include "cifar/train/config.h"

#include <fmt/format.h>

#include <CLI/CLI.hpp>
#include <limits>
#include <type_traits>

#include "cifar/core/errors.h"
#include "cifar/core/file_identity.h"
#include "cifar/io/normalization_flags.h"
#include "cifar/train/option_visitors.h"

namespace cifar {
namespace {
using namespace options;

// --- Parsing and formatting the typed values ----------------------------------------

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
  return to_string(s);
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
std::string recipe_text(const RecipeName& r) {
  return to_string(r);
}
Channels mean_of(const std::string& text) {
  return parse_channels("--mean", text);
}
Channels std_of(const std::string& text) {
  const Channels std = parse_channels("--std", text);
  for (const double s : std) {
    if (s <= 0) throw UsageError(fmt::format("--std values must be > 0, got '{}'", text));
  }
  return std;
}
std::string channels_text(const Channels& c) {
  return fmt::format("{},{},{}", c[0], c[1], c[2]);
}

// --- Groups the tools share ----------------------------------------------------------

constexpr const char* kModel = "Model";
constexpr const char* kData = "Data";
constexpr const char* kDevice = "Device and speed";
constexpr const char* kEvaluation = "Evaluation";
constexpr const char* kOutput = "Output";

// Where a trained model comes from: cifar-eval, cifar-predict, cifar-export.
template <class In, class V>
void model_group(In& in, V&& v) {
  v.text(Opt{"-c,--checkpoint", kModel, "Checkpoint written by cifar-train"}, in.checkpoint);
  v.text(Opt{"-w,--weights", kModel,
             "Weights file (.safetensors, .pt, .pth, e.g. a Python state_dict) instead of a "
             "checkpoint"},
         in.weights);
  v.parsed(Opt{"-m,--model", kModel,
               "With --weights: net, resnet18 or airbench94 (default: the file's metadata)"},
           in.model, Parsed<std::string>{model_of, same});
  v.parsed(Opt{"--stem", kModel,
               "With --weights: ResNet stem, cifar or imagenet (default: metadata, else cifar)"},
           in.stem, Parsed<ResNetStem>{parse_stem, stem_text});
  v.parsed(Opt{"--mean", kModel,
               "With --weights: normalisation mean as r,g,b (default: the file's metadata, else "
               "0.4914,0.4822,0.4465)"},
           in.mean, Parsed<Channels>{mean_of, channels_text});
  v.parsed(Opt{"--std", kModel,
               "With --weights: normalisation std as r,g,b (default: the file's metadata, else "
               "0.2470,0.2435,0.2616)"},
           in.std, Parsed<Channels>{std_of, channels_text});
}

// cifar-train, cifar-eval.
template <class C, class V>
void data_group(C& c, V&& v) {
  // Local: each process may read its own copy (the ranks compare the data itself).
  v.text(
      local(Opt{"--data", kData,
                "CIFAR-10 binary folder (default: $CIFAR10_DIR, else data/cifar-10-batches-bin)"}),
      c.data_dir);
}

// cifar-train, cifar-eval.
template <class C, class V>
void device_group(C& c, V&& v) {
  v.parsed(local(Opt{"-d,--device", kDevice, "auto, cpu, cuda or cuda:N (falls back to the CPU)"}),
           c.device, Parsed<DeviceRequest>{device_of, device_text});
  v.parsed(Opt{"--amp", kDevice, "Mixed precision: bf16, fp16 (with loss scaling) or off"}, c.amp,
           Parsed<AmpMode>{parse_amp, amp_text});
}

// cifar-train (evaluations during training) and cifar-eval (which can also
// take the level the checkpoint was trained for).
template <class C, class V>
void tta_option(C& c, V&& v) {
  if constexpr (std::is_same_v<std::remove_const_t<C>, EvalConfig>) {
    v.number(Opt{"--tta", kEvaluation,
                 "Test-time augmentation: 0 none, 1 mirror, 2 mirror + two 1-pixel translates; "
                 "-1: the checkpoint's level"},
             c.tta, Range<int64_t>{-1, 2});
  } else {
    v.number(Opt{"--tta", kEvaluation,
                 "Test-time augmentation: 0 none, 1 mirror, 2 mirror + two 1-pixel translates"},
             c.tta, Range<int64_t>{0, 2});
  }
}

// --- The tools' tables ---------------------------------------------------------------

// Config is TrainConfig, or const TrainConfig for the visitors that only read.
template <class Config, class V>
void train_options(Config& c, V&& v) {
  v.parsed(fixed(Opt{"--recipe", kModel,
                     "classic (SGD on all parameters) or airbench94 (Muon + SGD, the speedrun's "
                     "schedule and augmentation)"}),
           c.recipe, Parsed<RecipeName>{parse_recipe, recipe_text});
  v.parsed(fixed(Opt{"-m,--model", kModel,
                     "net, resnet18 or airbench94 (default: the recipe's: net, or airbench94; the "
                     "checkpoint's with --resume)"}),
           c.model, Parsed<std::string>{model_of, same});
  v.parsed(
      fixed(Opt{"--stem", kModel, "ResNet stem: cifar (3x3, no pool) or imagenet (7x7 + pool)"}),
      c.stem, Parsed<ResNetStem>{parse_stem, stem_text});
  v.text(Opt{.names = "--init-weights",
             .group = kModel,
             .help = "Start from these weights (.safetensors, .pt, .pth, e.g. saved in Python) "
                     "instead of a fresh model",
             .saved = false},
         c.init_weights);
  v.text(Opt{.names = "--resume",
             .group = kModel,
             .help = "Continue training from this checkpoint (model, optimiser, position)",
             .saved = false},
         c.resume);
  data_group(c, v);
  v.number(
      fixed_mid_epoch(Opt{"--train-limit", kData, "Train on the first N images only (0: all)"}),
      c.train_limit, Range<int64_t>{0, kMaxCount});
  v.number(fixed_mid_epoch(
               Opt{"--val-split", kData,
                   "Hold out N training images (chosen by --seed) as a validation set; best.pt is "
                   "chosen on it (0: none, and best.pt is chosen on the test set)"}),
           c.val_split, Range<int64_t>{0, kMaxCount});
  v.flag(Opt{"--augment", kData, "Random crop (4-pixel padding) and horizontal flip"}, c.augment);
  device_group(c, v);
  v.number(
      local(Opt{"--threads", kDevice, "CPU threads for intra-op work (0: chosen at run time)"}),
      c.threads, Range<int64_t>{0, 4096});
  v.flag(
      local(Opt{
          "--channels-last", kDevice,
          "NHWC images and weights (CPU: slower at batch <= 32, within ~10% of NCHW at 128-256)"}),
      c.channels_last);
  v.flag(local(Opt{"--cuda-graph", kDevice, "Capture the training step in a CUDA graph, GPU only"}),
         c.cuda_graph);
  v.flag(local(Opt{"--cudnn-benchmark", kDevice, "Let cuDNN time its algorithms"}),
         c.cudnn_benchmark);
  v.flag(local(Opt{"--tf32", kDevice, "TF32 matrix products on GPUs that have them"}), c.tf32);
  v.flag(Opt{"--deterministic", kDevice,
             "Repeatable runs: a fixed thread count (no measuring), cuDNN benchmark off, "
             "deterministic algorithms only"},
         c.deterministic);
  v.number(Opt{"-e,--epochs", "Optimisation", "Epochs to train (in total, when resuming)"},
           c.epochs, Range<int64_t>{1, 1'000'000});
  v.number(fixed_mid_epoch(Opt{"-b,--batch-size", "Optimisation", "Training batch size"}),
           c.batch_size, Range<int64_t>{1, kMaxCount});
  v.number(Opt{"--lr", "Optimisation", "Peak learning rate"}, c.lr,
           Range<double>{0, kMaxReal, true});
  v.number(Opt{"--momentum", "Optimisation", "SGD momentum"}, c.momentum,
           Range<double>{0, 1, false, true});
  v.flag(Opt{"--nesterov", "Optimisation", "Nesterov momentum"}, c.nesterov);
  v.number(Opt{"--weight-decay", "Optimisation", "L2 weight decay"}, c.weight_decay,
           Range<double>{0, kMaxReal});
  v.parsed(Opt{"--schedule", "Optimisation", "constant, step, cosine, onecycle or linear"},
           c.schedule, Parsed<Schedule>{parse_schedule, schedule_text});
  v.number(Opt{"--warmup-epochs", "Optimisation", "Linear warm-up length in epochs"},
           c.warmup_epochs, Range<double>{0, 1'000'000});
  v.number(Opt{"--label-smoothing", "Optimisation", "Cross-entropy label smoothing"},
           c.label_smoothing, Range<double>{0, 1, false, true});
  v.number(fixed_mid_epoch(Opt{"--seed", "Optimisation",
                               "Seed for initialisation, shuffling and augmentation"}),
           c.seed, Range<uint64_t>{0, std::numeric_limits<uint64_t>::max()});
  v.number(
      Opt{"--eval-every", kEvaluation, "Evaluate after every N-th epoch (the last epoch always)"},
      c.eval_every, Range<int64_t>{1, kMaxCount});
  v.number(Opt{"--eval-batch-size", kEvaluation, "Batch size for evaluation"}, c.eval_batch_size,
           Range<int64_t>{1, kMaxCount});
  tta_option(c, v);
  v.text(
      local(Opt{"-o,--checkpoint", kOutput, "Where the trained model goes (default: <model>.pt)"}),
      c.checkpoint);
  v.text(local(Opt{"--run-dir", kOutput,
                   "Folder for config.toml, metrics.csv, last.pt and best.pt (default: runs/...)"}),
         c.run_dir);
  v.flag(Opt{.names = "--overwrite",
             .group = kOutput,
             .help = "Replace the results of an earlier run in --run-dir (config.toml, "
                     "metrics.csv, last.pt, best.pt) instead of refusing to start",
             .saved = false},
         c.overwrite);
  v.number(local(Opt{"--log-interval", kOutput,
                     "Seconds between progress lines when stderr is not a terminal"}),
           c.log_interval_s, Range<double>{0, 1'000'000, true});
  v.flag(local(Opt{"--tensorboard", kOutput,
                   "TensorBoard event files in the run folder (view: tensorboard --logdir runs/)"}),
         c.tensorboard);
  v.number(local(Opt{"--dist-timeout", "Several processes",
                     "Seconds start-up and each exchange may wait for the other processes"}),
           c.dist_timeout_s, Range<double>{0, 86'400, true});
}

template <class Config, class V>
void eval_options(Config& c, V&& v) {
  model_group(c, v);
  data_group(c, v);
  device_group(c, v);
  v.number(Opt{"-b,--batch-size", kEvaluation, "Evaluation batch size"}, c.batch_size,
           Range<int64_t>{1, kMaxCount});
  tta_option(c, v);
  v.flag(Opt{"--json", kOutput, "Print one JSON object instead of tables"}, c.json);
}

template <class Config, class V>
void predict_options(Config& c, V&& v) {
  model_group(c, v);
  v.positional(Opt{.names = "images", .group = "", .help = "PNG or JPEG files", .required = true},
               c.images);
  v.number(Opt{"-b,--batch-size", kDevice, "Images per forward pass"}, c.predict.batch_size,
           Range<int64_t>{1, kMaxCount});
  v.number(Opt{"-k,--top-k", kOutput, "Classes to report per image"}, c.predict.top_k,
           Range<int64_t>{1, kMaxCount});
  v.flag(Opt{"--json", kOutput, "Print one JSON array, an object per image"}, c.json);
  v.flag(Opt{"--logits", kOutput, "With --json: add each image's raw logits"}, c.predict.logits);
}

template <class Config, class V>
void export_options(Config& c, V&& v) {
  model_group(c, v);
  v.text(Opt{.names = "-o,--out",
             .group = kOutput,
             .help = "Output file: .safetensors, or .pt/.pth (a state dict for torch.load)",
             .required = true},
         c.out);
}

}  // namespace

RecipeName parse_recipe(const std::string& text) {
  if (text == "classic") return RecipeName::kClassic;
  if (text == "airbench94") return RecipeName::kAirbench94;
  throw UsageError(fmt::format("unknown --recipe '{}': choose classic or airbench94", text));
}

std::string to_string(RecipeName recipe) {
  return recipe == RecipeName::kAirbench94 ? "airbench94" : "classic";
}

void add_train_options(CLI::App& app, TrainConfig& config) {
  train_options(config, OptionDeclarer{app});
}

void validate(const TrainConfig& config) {
  train_options(config, RangeChecker{.toml = true});
  if (!config.init_weights.empty() && !config.resume.empty()) {
    throw UsageError("--init-weights and --resume both say where the model comes from: give one");
  }
  if (config.nesterov && config.momentum == 0) {
    throw UsageError(
        "--nesterov needs --momentum above 0 (Nesterov momentum without momentum is plain SGD)");
  }
  if (config.amp == AmpMode::kFp16 && config.cuda_graph) {
    // Refused, not quietly run eagerly: --cuda-graph is asked for speed, and
    // the other way to get the graph (bf16) is one flag away.
    throw UsageError(
        "--amp fp16 cannot be used with --cuda-graph: whether a step is skipped for inf/NaN "
        "gradients is decided on the host, which a captured graph cannot do; use --amp bf16 "
        "with --cuda-graph (no loss scaling needed), or drop --cuda-graph");
  }
}

std::string to_toml(const TrainConfig& config) {
  TomlWriter writer{.out = "# cifar-train settings (read back with --config)\n"};
  train_options(config, writer);
  return writer.out;
}

std::vector<std::pair<std::string, SettingRole>> train_setting_roles() {
  const TrainConfig defaults;
  RoleLister lister;
  train_options(defaults, lister);
  return std::move(lister.roles);
}

void add_eval_options(CLI::App& app, EvalConfig& config) {
  eval_options(config, OptionDeclarer{app});
}
void add_predict_options(CLI::App& app, PredictConfig& config) {
  predict_options(config, OptionDeclarer{app});
}
void add_export_options(CLI::App& app, ExportConfig& config) {
  export_options(config, OptionDeclarer{app});
}

void validate(const EvalConfig& config) {
  eval_options(config, RangeChecker{});
  validate(static_cast<const ModelInput&>(config));
}
void validate(const PredictConfig& config) {
  predict_options(config, RangeChecker{});
  validate(static_cast<const ModelInput&>(config));
}
void validate(const ExportConfig& config) {
  export_options(config, RangeChecker{});
  validate(static_cast<const ModelInput&>(config));
  check_distinct_files({{"--checkpoint", config.checkpoint}, {"--weights", config.weights}},
                       {{"--out", config.out}});
}

}  // namespace cifar
