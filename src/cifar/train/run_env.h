// run_env.h: what the app knows about how cifar-train was started.
//
// The library reads no environment of its own: the app fills this in (its
// program name, whether stderr is a terminal, the machine's variables
// (platform/machine.h) and the launcher's) and hands it to train().
#pragma once

#include <chrono>
#include <cstdint>
#include <filesystem>
#include <string>
#include <thread>
#include <vector>

#include "cifar/dist/distributed.h"
#include "cifar/platform/machine.h"

namespace cifar {

struct RunEnv {
  std::string program = "cifar-train";  // argv[0], for the hints the tool prints
  bool progress_bar = false;            // bars draw on stderr (app/cli.h: stderr_draws_bars)
  MachineEnv machine{.hardware_threads = std::thread::hardware_concurrency(),
                     .omp_num_threads = 0,
                     .aten_cpu_capability = ""};  // the app fills it in
  DistEnv dist;  // the launcher's RANK, WORLD_SIZE, ... (one process by default)
  // Where --pretrained looks for weights (app/cli.h: pretrained_dirs_from_environment).
  std::vector<std::filesystem::path> pretrained_dirs;
  // Where an image folder's cache goes when its folder cannot hold one
  // (app/cli.h: spare_cache_dir_from_environment).
  std::filesystem::path spare_cache_dir;
  // The configs that come with the tools, as hints name them (app/cli.h:
  // shipped_configs_shown): "configs" in the source tree.
  std::filesystem::path configs_dir = "configs";
  // When the process started: --time's budget counts from it (time_budget.h).
  std::chrono::steady_clock::time_point started = std::chrono::steady_clock::now();
};

}  // namespace cifar
