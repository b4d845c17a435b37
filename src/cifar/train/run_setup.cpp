// run_setup.cpp: the smaller pieces of the training job.
#include "cifar/train/run_setup.h"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include "cifar/core/errors.h"
#include "cifar/core/version.h"

namespace cifar {
namespace fs = std::filesystem;

LogLevelGuard::LogLevelGuard(spdlog::level::level_enum level) : old_(spdlog::get_level()) {
  spdlog::set_level(level);
}

LogLevelGuard::~LogLevelGuard() {
  spdlog::set_level(old_);
}

// What TensorBoard's HPARAMS tab shows of a run.
std::vector<HParam> hparams_of(const TrainConfig& c) {
  return {{"recipe", to_string(c.recipe)},
          {"model", c.model},
          {"batch_size", static_cast<double>(c.batch_size)},
          {"lr", c.lr},
          {"momentum", c.momentum},
          {"weight_decay", c.weight_decay},
          {"epochs", static_cast<double>(c.epochs)},
          {"augment", c.augment},
          {"seed", static_cast<double>(c.seed)}};
}

// Options that would do nothing here are said to do nothing, once.
void warn_ignored(const TrainConfig& c, const std::string& model, const torch::Device& device) {
  if (model == "net" && c.stem != ResNetStem::kCifar) {
    spdlog::warn("--stem only applies to resnet18; the net model ignores it");
  }
  if (c.cuda_graph && !device.is_cuda()) {
    spdlog::warn("--cuda-graph needs a CUDA device; training eagerly on {}", device.str());
  }
  if (device.is_cpu() && c.amp == AmpMode::kBf16 && model == "net") {
    spdlog::warn(
        "--amp bf16 on the CPU: supported, but slower than float32 for the small net "
        "(use --amp off for speed)");
  }
  if (device.is_cpu() && c.amp == AmpMode::kFp16) {
    spdlog::warn(
        "--amp fp16 on the CPU: works, but on CPUs without avx512_fp16 several times slower than "
        "float32 (the net: about 7x); it is meant for GPUs without fast bf16 (T4, V100)");
  }
  if (c.recipe != RecipeName::kAirbench94 && c.warmup_epochs > static_cast<double>(c.epochs)) {
    const double reached = c.schedule == Schedule::kOneCycle
                               ? c.lr
                               : c.lr * static_cast<double>(c.epochs) / c.warmup_epochs;
    spdlog::warn(
        "--warmup-epochs {} is longer than the run's {} epochs: the learning rate climbs for the "
        "whole run{}; give --warmup-epochs below {} or train longer",
        c.warmup_epochs, c.epochs,
        c.schedule == Schedule::kOneCycle
            ? fmt::format(" and peaks at --lr {:g} only at the last step", reached)
            : fmt::format(" and ends at {:.3g}, never reaching --lr {:g}", reached, c.lr),
        c.epochs);
  }
  if (c.recipe == RecipeName::kAirbench94) {
    const TrainConfig defaults;
    std::vector<std::string> unused;
    if (c.lr != defaults.lr) unused.emplace_back("--lr");
    if (c.momentum != defaults.momentum) unused.emplace_back("--momentum");
    if (c.nesterov != defaults.nesterov) unused.emplace_back("--nesterov");
    if (c.weight_decay != defaults.weight_decay) unused.emplace_back("--weight-decay");
    if (c.schedule != defaults.schedule) unused.emplace_back("--schedule");
    if (c.warmup_epochs != defaults.warmup_epochs) unused.emplace_back("--warmup-epochs");
    if (c.label_smoothing != defaults.label_smoothing) unused.emplace_back("--label-smoothing");
    if (c.augment != defaults.augment) unused.emplace_back("--augment");
    if (!unused.empty()) {
      spdlog::warn(
          "the airbench94 recipe sets its own rates, schedule, loss and augmentation: "
          "{} ignored",
          fmt::format("{}", fmt::join(unused, ", ")));
    }
  }
}

std::optional<LoadedCheckpoint> load_resume(const TrainConfig& c) {
  if (c.resume.empty()) return std::nullopt;
  LoadedCheckpoint resumed = load_checkpoint(c.resume);
  const auto& info = resumed.info;
  if (!c.model.empty() && c.model != info.model) {
    throw UsageError(
        fmt::format("--resume {} holds a {} model, but --model is {}; drop --model "
                    "or resume a {} checkpoint",
                    c.resume, info.model, c.model, c.model));
  }
  if (info.epoch >= c.epochs && info.step_in_epoch == 0) {
    throw UsageError(
        fmt::format("--resume {} has already trained {} epochs; pass --epochs above "
                    "{} to train further",
                    c.resume, info.epoch, info.epoch));
  }
  return resumed;
}

namespace {
// The first `limit` images of `data` (all of them when limit is 0 or larger).
void keep_first(Cifar10Dataset& data, int64_t limit) {
  if (limit <= 0 || limit >= data.size()) return;
  data.images = data.images.narrow(0, 0, limit);
  data.labels = data.labels.narrow(0, 0, limit);
}
}  // namespace

TrainValSplit read_train_split(const TrainConfig& c) {
  TrainValSplit split =
      split_validation(read_cifar10(c.data_dir, Split::kTrain), c.val_split, c.seed);
  keep_first(split.train, c.train_limit);
  return split;
}

Cifar10Dataset read_test_split(const TrainConfig& c) {
  Cifar10Dataset test = read_cifar10(c.data_dir, Split::kTest);
  keep_first(test, c.test_limit);
  return test;
}

void log_data(const TrainConfig& c, const TrainValSplit& splits, int64_t test_images,
              bool main_rank) {
  const int64_t train_images = splits.train.size();
  spdlog::info("data: {} ({} training, {} validation, {} test images)", c.data_dir, train_images,
               splits.val.size(), test_images);
  if (splits.val.size() > 0) {
    spdlog::info("best.pt: chosen by validation accuracy on the {} held-out images",
                 splits.val.size());
  } else {
    spdlog::info(
        "best.pt: chosen by test accuracy, which lets the test set pick the model; hold out "
        "images with --val-split N to choose on validation instead");
  }
  if (c.batch_size > train_images && main_rank) {
    spdlog::warn(
        "--batch-size {} is more than the {} training images: each epoch is one step of {}; "
        "the data allows --batch-size {} at most",
        c.batch_size, train_images, train_images, train_images);
  }
}

void to_channels_last(torch::nn::Module& model) {
  torch::NoGradGuard no_grad;
  for (auto& p : model.parameters()) {
    if (p.dim() == 4) p.set_data(p.data().contiguous(torch::MemoryFormat::ChannelsLast));
  }
}

// The settings as they will be saved: the model the run really trains, and
// absolute paths, so that config.toml resumes the run from any folder.
TrainConfig resolved_settings(const TrainConfig& c, const std::string& model, ResNetStem stem,
                              const fs::path& run_dir, const fs::path& checkpoint) {
  TrainConfig r = c;
  r.model = model;
  r.stem = stem;
  r.data_dir = fs::absolute(c.data_dir).lexically_normal().string();
  r.run_dir = fs::absolute(run_dir).lexically_normal().string();
  r.checkpoint = fs::absolute(checkpoint).lexically_normal().string();
  return r;
}

std::vector<NamedFile> run_input_files(const TrainConfig& c) {
  std::vector<NamedFile> files;
  for (const Split split : {Split::kTrain, Split::kTest}) {
    for (const auto& name : batch_file_names(split)) {
      files.push_back({"--data's " + name, fs::path(c.data_dir) / name});
    }
  }
  files.push_back({"--data's batches.meta.txt", fs::path(c.data_dir) / "batches.meta.txt"});
  if (!c.init_weights.empty()) files.push_back({"--init-weights", c.init_weights});
  return files;
}

CheckpointInfo checkpoint_info(const TrainConfig& resolved, const Normalization& norm,
                               const std::vector<std::string>& class_names,
                               const std::string& config_toml) {
  CheckpointInfo info;
  info.model = resolved.model;
  info.stem = to_string(resolved.stem);
  info.normalization = norm;
  info.class_names = class_names;
  info.config_toml = config_toml;
  info.libtorch_version = libtorch_version();
  return info;
}

EpochMetrics metrics_of(int64_t epoch, const EpochStats& stats, const EvalResult* test,
                        const EvalResult* val, double eval_seconds) {
  EpochMetrics m;
  m.epoch = epoch;
  m.train_loss = stats.loss;
  m.train_accuracy = stats.accuracy;
  m.tested = test != nullptr;
  if (test != nullptr) {
    m.test_loss = test->loss;
    m.test_accuracy = test->accuracy();
  }
  if (val != nullptr) {
    m.val_loss = val->loss;
    m.val_accuracy = val->accuracy();
  }
  m.lr = stats.last_lr;
  m.seconds = stats.seconds;
  m.images_per_second = stats.seconds > 0 ? static_cast<double>(stats.images) / stats.seconds : 0;
  m.eval_seconds = eval_seconds;
  m.peak_memory_bytes = stats.peak_memory_bytes;
  return m;
}

}  // namespace cifar
