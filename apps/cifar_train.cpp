// cifar-train: train a CIFAR-10 classifier (see README.md).
//
// Parses options (command line over --config file), then hands them to
// cifar::train() and prints the final per-class report.
#include <unistd.h>

#include <spdlog/spdlog.h>
#include <CLI/CLI.hpp>
#include <iostream>

#include "cifar/cli.h"
#include "cifar/device.h"
#include "cifar/models.h"
#include "cifar/training.h"

int main(int argc, char** argv) {
  cifar::TrainConfig c;
  cifar::LogOptions log;
  bool list_devices = false;
  std::string data_dir;

  CLI::App app{"cifar-train: train a CIFAR-10 classifier with LibTorch", "cifar-train"};
  app.set_version_flag("--version", std::string("cifar-train ") + CIFAR_VERSION + " (LibTorch " +
                                        TORCH_VERSION + ")");
  app.set_config("--config", "", "Read options from a TOML file; flags given here override it");
  app.allow_config_extras(CLI::config_extras_mode::error);
  app.option_defaults()->always_capture_default()->multi_option_policy(
      CLI::MultiOptionPolicy::TakeLast);

  const auto model_names = cifar::model_names();
  app.add_option("-m,--model", c.model, "Model (default: net, or the checkpoint's with --resume)")
      ->check(CLI::IsMember(model_names))
      ->group("Model");
  app.add_option("--stem", c.stem, "ResNet stem: cifar (3x3, no pool) or imagenet (7x7 + pool)")
      ->check(CLI::IsMember({"cifar", "imagenet"}))
      ->group("Model");

  app.add_option("--data", data_dir,
                 "CIFAR-10 binary folder (default: $CIFAR10_DIR, else data/cifar-10-batches-bin)")
      ->group("Data");
  app.add_option("--train-limit", c.train_limit, "Train on the first N images only (0: all)")
      ->group("Data");
  app.add_flag("--augment,!--no-augment", c.augment,
               "Random crop (4-pixel padding) and horizontal flip (default: off)")
      ->group("Data");

  app.add_option("-d,--device", c.device, "auto, cpu, cuda or cuda:N (falls back to cpu)")
      ->group("Device");
  app.add_flag("--list-devices", list_devices, "List the CPU and GPUs, then exit")->group("Device");
  app.add_option("--threads", c.threads, "CPU threads for intra-op work (0: all cores)")
      ->group("Device");

  app.add_option("-e,--epochs", c.epochs, "Epochs to train (in total, when resuming)")
      ->group("Optimisation");
  app.add_option("-b,--batch-size", c.batch_size, "Training batch size")->group("Optimisation");
  app.add_option("--lr", c.lr, "Peak learning rate")->group("Optimisation");
  app.add_option("--momentum", c.momentum, "SGD momentum")->group("Optimisation");
  app.add_flag("--nesterov,!--no-nesterov", c.nesterov, "Nesterov momentum (default: off)")
      ->group("Optimisation");
  app.add_option("--weight-decay", c.weight_decay, "L2 weight decay")->group("Optimisation");
  app.add_option("--schedule", c.schedule, "constant, step, cosine or onecycle")
      ->group("Optimisation");
  app.add_option("--warmup-epochs", c.warmup_epochs, "Linear warm-up length in epochs")
      ->group("Optimisation");
  app.add_option("--label-smoothing", c.label_smoothing, "Cross-entropy label smoothing")
      ->group("Optimisation");
  app.add_option("--seed", c.seed, "Seed for initialisation, shuffling and augmentation")
      ->group("Optimisation");

  app.add_option("--amp", c.amp, "Mixed precision: bf16 or off")->group("Speed");
  app.add_flag("--channels-last,!--no-channels-last", c.channels_last,
               "NHWC memory format, faster convolutions on GPUs (default: off)")
      ->group("Speed");
  app.add_flag("--cuda-graph,!--no-cuda-graph", c.cuda_graph,
               "Capture the training step in a CUDA graph, GPU only (default: off)")
      ->group("Speed");
  app.add_flag("--cudnn-benchmark,!--no-cudnn-benchmark", c.cudnn_benchmark,
               "Let cuDNN time its algorithms (default: on)")
      ->group("Speed");
  app.add_flag("--tf32,!--no-tf32", c.tf32,
               "TF32 matrix products on GPUs that have them (default: on)")
      ->group("Speed");
  app.add_option("--eval-batch-size", c.eval_batch_size, "Batch size for evaluation")
      ->group("Speed");

  app.add_option("-o,--checkpoint", c.checkpoint,
                 "Where the trained model goes (default: <model>.pt)")
      ->group("Output");
  app.add_option("--run-dir", c.run_dir,
                 "Folder for config.toml, metrics.csv, last.pt and best.pt (default: runs/...)")
      ->group("Output");
  app.add_option("--resume", c.resume, "Continue training from this checkpoint")->group("Output");
  app.add_option("--log-interval", c.log_interval_s,
                 "Seconds between progress lines when stderr is not a terminal")
      ->group("Output");
  cifar::add_log_flags(app, log);

  return cifar::run_cli(app, argc, argv, log, [&] {
    if (list_devices) {
      std::cout << cifar::describe_devices();
      return 0;
    }
    if (!data_dir.empty()) c.data_dir = data_dir;
    c.progress_bar = !log.quiet && ::isatty(STDERR_FILENO) != 0;
    const auto result = cifar::train(c);
    std::cout << cifar::format_per_class(result.final_eval, result.class_names);
    spdlog::info("checkpoint: {} (best: {}); run folder: {}", result.checkpoint.string(),
                 result.best_checkpoint.string(), result.run_dir.string());
    return 0;
  });
}
