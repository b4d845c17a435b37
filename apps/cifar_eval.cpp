// cifar-eval: evaluate a cifar-train checkpoint on the CIFAR-10 test split.
//
// The checkpoint alone says which model to build; the report is the overall
// and per-class accuracy and the confusion matrix, or one JSON object.
#include <CLI/CLI.hpp>
#include <iostream>

#include "cifar/cli.h"
#include "cifar/training.h"

int main(int argc, char** argv) {
  cifar::EvalConfig c;
  cifar::LogOptions log;
  std::string data_dir;
  bool json = false;

  CLI::App app{"cifar-eval: evaluate a cifar-train checkpoint on the CIFAR-10 test set",
               "cifar-eval"};
  app.set_version_flag("--version", std::string("cifar-eval ") + CIFAR_VERSION + " (LibTorch " +
                                        TORCH_VERSION + ")");
  app.option_defaults()->always_capture_default()->multi_option_policy(
      CLI::MultiOptionPolicy::TakeLast);
  app.add_option("-c,--checkpoint", c.checkpoint, "Checkpoint written by cifar-train")->required();
  app.add_option("--data", data_dir,
                 "CIFAR-10 binary folder (default: $CIFAR10_DIR, else data/cifar-10-batches-bin)");
  app.add_option("-d,--device", c.device, "auto, cpu, cuda or cuda:N (falls back to cpu)");
  app.add_option("-b,--batch-size", c.batch_size, "Evaluation batch size");
  app.add_option("--amp", c.amp, "Mixed precision: bf16 or off");
  app.add_flag("--json", json, "Print one JSON object instead of tables");
  cifar::add_log_flags(app, log);

  return cifar::run_cli(app, argc, argv, log, [&] {
    if (!data_dir.empty()) c.data_dir = data_dir;
    const auto report = cifar::evaluate_checkpoint(c);
    if (json) {
      std::cout << cifar::eval_to_json(report.result, report.model, report.device,
                                       report.class_names)
                       .dump()
                << '\n';
    } else {
      std::cout << cifar::format_per_class(report.result, report.class_names) << '\n'
                << cifar::format_confusion(report.result, report.class_names);
    }
    return 0;
  });
}
