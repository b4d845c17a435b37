// run_env.h: what the app knows about how cifar-train was started.
//
// The library reads no environment of its own: the app fills this in (its
// program name, whether stderr is a terminal, the cores, $OMP_NUM_THREADS and
// the launcher's variables) and hands it to train().
#pragma once

#include <chrono>
#include <cstdint>
#include <filesystem>
#include <string>
#include <thread>
#include <vector>

#include "cifar/dist/distributed.h"

namespace cifar {

struct RunEnv {
  std::string program = "cifar-train";  // argv[0], for the hints the tool prints
  bool progress_bar = false;            // bars draw on stderr (app/cli.h: stderr_draws_bars)
  int64_t hardware_threads = std::thread::hardware_concurrency();
  int64_t omp_num_threads = 0;  // $OMP_NUM_THREADS (torchrun sets 1), used when --threads is 0
  DistEnv dist;                 // the launcher's RANK, WORLD_SIZE, ... (one process by default)
  // Where --pretrained looks for weights (app/cli.h: pretrained_dirs_from_environment).
  std::vector<std::filesystem::path> pretrained_dirs;
  // When the process started: --time's budget counts from it (time_budget.h).
  std::chrono::steady_clock::time_point started = std::chrono::steady_clock::now();
};

}  // namespace cifar
