// cifar-eval: evaluate a cifar-train checkpoint on a data set's test split.
//
// The checkpoint alone says which model to build (or a weights file with
// --model, --stem, --mean, --std); the report is the overall and per-class
// accuracy and the confusion matrix, or one JSON object. Options: src/cifar/config/option_tables.h.
#include <CLI/CLI.hpp>
#include <iostream>

#include "cifar/app/cli.h"
#include "cifar/app/std_streams.h"
#include "cifar/config/config.h"
#include "cifar/core/version.h"
#include "cifar/data/image_folder.h"  // split_folder_name
#include "cifar/infer/evaluate.h"
#include "cifar/platform/interrupt.h"
#include "cifar/report/reporting.h"
#include "cifar/resolve/inference.h"

int main(int argc, char** argv) {
  cifar::open_closed_standard_fds();  // before any file is opened (std_streams.h)
  cifar::EvalConfig config;
  cifar::LogOptions log;

  CLI::App app{
      "cifar-eval: evaluate a cifar-train checkpoint on a test set (CIFAR-10, CIFAR-100, image "
      "folders)",
      "cifar-eval"};
  app.set_version_flag("--version", cifar::version_line("cifar-eval"));
  app.option_defaults()->multi_option_policy(CLI::MultiOptionPolicy::TakeLast);
  cifar::add_eval_options(app, config);
  cifar::add_log_flags(app, log);

  return cifar::run_cli(app, argc, argv, log, [&] {
    cifar::resolve_data_env(app, config.data_dir);
    config.progress_bar = !log.quiet && cifar::stderr_draws_bars();  // as cifar-train
    config.machine = cifar::machine_env_from_environment();          // as cifar-train
    config.spare_cache_dir = cifar::spare_cache_dir_from_environment();
    const auto report = [&] {  // a Ctrl-C or SIGTERM stops it between batches (exit 130)
      const cifar::InterruptGuard interrupt_guard(cifar::kEvaluationNotice);
      return cifar::evaluate_checkpoint(cifar::resolve_eval(config));
    }();
    const std::string split = cifar::split_folder_name(config.split);  // "test", "val", "train"
    if (config.json) {
      std::cout << cifar::eval_to_json(report.result, report.model, report.device,
                                       report.class_names, split)
                << '\n';
    } else {
      std::cout << cifar::format_per_class(report.result, report.class_names, split) << '\n'
                << cifar::format_confusion(report.result, report.class_names);
    }
    return 0;
  });
}
