// train_result.h: what a training run returns to its caller.
#pragma once

#include <filesystem>
#include <string>
#include <vector>

#include "cifar/report/metrics.h"

namespace cifar {

struct TrainResult {
  std::string model;
  std::string device;
  std::vector<EpochMetrics> history;  // epochs run by this invocation
  EvalResult final_eval;
  std::vector<std::string> class_names;
  std::filesystem::path checkpoint;
  std::filesystem::path best_checkpoint;
  std::filesystem::path run_dir;
  // The data's val/ served as the test split (an image folder without test/):
  // final_eval is on its images, which the report says.
  std::string test_is_val;  // empty, or val/'s path
};

}  // namespace cifar
