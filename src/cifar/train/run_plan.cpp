// run_plan.cpp: the model source, the data and the output paths of a run.
#include "cifar/train/run_plan.h"

#include <spdlog/spdlog.h>

#include "cifar/report/run_outputs.h"
#include "cifar/train/run_setup.h"
#include "cifar/train/settings_check.h"

namespace cifar {
namespace fs = std::filesystem;

RunPlan make_plan(const TrainConfig& config, const Recipe& recipe, const torch::Device& device,
                  const Distributed& dist) {
  ModelSource source = model_source(config, recipe.network);
  warn_ignored(config, source.model_name, device);

  const TrainValSplit splits = read_train_split(config);
  const Cifar10Dataset test_split = read_test_split(config);
  log_data(config, splits, test_split.size(), dist.is_main());
  const Normalization& norm = source.normalization;
  std::optional<DeviceDataset> val;
  if (splits.val.size() > 0) val.emplace(splits.val, device, norm, config.channels_last);

  const fs::path run_dir =
      config.run_dir.empty() ? default_run_dir(source.model_name) : fs::path(config.run_dir);
  const fs::path checkpoint =
      config.checkpoint.empty() ? fs::path(source.model_name + ".pt") : fs::path(config.checkpoint);
  TrainConfig resolved =
      resolved_settings(config, source.model_name, source.stem, run_dir, checkpoint);
  std::string config_toml = to_toml(resolved);
  spdlog::debug("settings:\n{}", config_toml);
  if (source.resumed) {  // refuses what cannot be continued, names what changed
    const std::string changed =
        check_resumed_settings(config.resume, source.resumed->info, config_toml);
    if (!changed.empty() && dist.is_main()) spdlog::warn("{}", changed);
  }
  return RunPlan{
      .source = std::move(source),
      .train = DeviceDataset(splits.train, device, norm, config.channels_last),
      .test = DeviceDataset(test_split, device, norm, config.channels_last),
      .val = std::move(val),
      .class_names = splits.train.class_names,
      .run_dir = run_dir,
      .checkpoint = checkpoint,
      .resolved = std::move(resolved),
      .config_toml = std::move(config_toml),
  };
}

}  // namespace cifar
