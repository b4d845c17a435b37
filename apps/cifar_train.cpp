// cifar-train: train a CIFAR-10, CIFAR-100 or image-folder classifier (see README.md).
//
// Parses options (command line over a TOML --config file, config/config_file.h;
// each option is declared once, in src/cifar/config/option_tables.h), resolves what
// comes from the environment, then hands them to cifar::train() and prints the
// final per-class report.
#include <unistd.h>

#include <spdlog/spdlog.h>

#include <CLI/CLI.hpp>
#include <chrono>
#include <iostream>

#include "cifar/app/cli.h"
#include "cifar/app/option_precedence.h"
#include "cifar/app/std_streams.h"
#include "cifar/config/config.h"
#include "cifar/config/config_file.h"
#include "cifar/core/version.h"
#include "cifar/platform/device.h"
#include "cifar/report/reporting.h"
#include "cifar/resolve/recipe.h"
#include "cifar/train/train.h"

int main(int argc, char** argv) {
  const auto started = std::chrono::steady_clock::now();  // --time counts from here
  cifar::open_closed_standard_fds();  // before any file is opened (std_streams.h)
  cifar::TrainConfig config;
  cifar::LogOptions log;
  bool list_devices = false;

  CLI::App app{"cifar-train: train a CIFAR-10, CIFAR-100 or image-folder classifier with LibTorch",
               "cifar-train"};
  app.set_version_flag("--version", cifar::version_line("cifar-train"));
  cifar::add_config_option(app, "Read options from a TOML file; flags given here override it");
  app.option_defaults()->multi_option_policy(CLI::MultiOptionPolicy::TakeLast);
  cifar::add_train_options(app, config);
  app.get_option("--recipe")->description(cifar::recipes_in_words());
  app.add_flag("--list-devices", list_devices, "List the CPU and GPUs, then exit")->group("Device");
  cifar::add_log_flags(app, log);

  return cifar::run_cli(app, argc, argv, log, [&] {
    if (list_devices) {
      std::cout << cifar::describe_devices();
      return 0;
    }
    cifar::RunEnv env;
    env.dist = cifar::dist_env_from_environment();
    cifar::label_logs_with_rank(env.dist);  // before the first line a rank logs
    cifar::resolve_data_env(app, config.data_dir);
    if (const CLI::Option* file = app.get_config_ptr(); file != nullptr && file->count() > 0) {
      config.config_file = file->as<std::string>();  // an input: no output may replace it
    }
    cifar::settle_run_length(app, config.time_minutes, config.steps);
    cifar::settle_weights_digest(app, config.init_weights_sha256);
    cifar::validate(config);  // at start: text config.toml cannot hold, say, stops here
    cifar::check_recipe_settings(config);
    if (config.deterministic) cifar::set_deterministic_cublas_env();
    env.program = argv[0];
    env.started = started;
    env.progress_bar = !log.quiet && cifar::stderr_draws_bars();
    env.machine = cifar::machine_env_from_environment();
    env.pretrained_dirs = cifar::pretrained_dirs_from_environment();
    env.spare_cache_dir = cifar::spare_cache_dir_from_environment();
    env.configs_dir = cifar::shipped_configs_shown();
    const auto result = cifar::train(config, env);
    if (env.dist.rank != 0) return 0;   // rank 0 reports for all processes
    if (!result.test_is_val.empty()) {  // said once in the log, and here in the report
      std::cout << "The test split is " << result.test_is_val
                << " (the data has no test/ folder): the figures below are the validation "
                   "images'\n";
    }
    std::cout << cifar::format_per_class(result.final_eval, result.class_names);
    spdlog::info("checkpoint: {} (best: {}); run folder: {}", result.checkpoint.string(),
                 result.best_checkpoint.string(), result.run_dir.string());
    return 0;
  });
}
