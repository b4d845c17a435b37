// run_outputs.h: what a training run leaves behind, and when it writes it.
//
// A run folder holds config.toml (the resolved settings), metrics.csv (one
// row per epoch), last.pt and best.pt; --checkpoint names one more copy of
// the latest state. RunOutputs is created only once the inputs are known good
// (data read, checkpoint to resume loaded), checks that every output can be
// written before any training starts, and writes each file atomically.
#pragma once

#include <filesystem>
#include <string>

#include "cifar/metrics.h"
#include "cifar/reporting.h"

namespace cifar {

class RunOutputs {
 public:
  // Creates the run folder, writes config.toml and opens metrics.csv
  // (appending when resuming into the same folder).
  RunOutputs(std::filesystem::path run_dir, std::filesystem::path checkpoint,
             const std::string& config_toml);

  const std::filesystem::path& run_dir() const { return run_dir_; }
  const std::filesystem::path& checkpoint() const { return checkpoint_; }
  std::filesystem::path best() const { return run_dir_ / "best.pt"; }
  std::filesystem::path config_file() const { return run_dir_ / "config.toml"; }

  // The latest state: last.pt and --checkpoint (an interrupt, an epoch's end).
  void save_latest(const std::string& checkpoint_bytes);
  // An epoch's end: its metrics row, then the checkpoints (best.pt too when best).
  void epoch_done(const EpochMetrics& metrics, const std::string& checkpoint_bytes, bool best);

 private:
  std::filesystem::path run_dir_;
  std::filesystem::path checkpoint_;
  MetricsCsv csv_;
};

// runs/<date>-<time>-<model>, from the local time now.
std::filesystem::path default_run_dir(const std::string& model);

}  // namespace cifar
