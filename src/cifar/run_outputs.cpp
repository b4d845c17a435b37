// run_outputs.cpp: the run folder and the checkpoint files.
#include "cifar/run_outputs.h"

#include <fmt/format.h>

#include <ctime>

#include "cifar/checkpoint.h"

namespace cifar {
namespace fs = std::filesystem;

namespace {
// Every output is checked writable before config.toml is written and
// metrics.csv opened.
fs::path prepared(fs::path run_dir, const fs::path& checkpoint, const std::string& config_toml) {
  ensure_writable(run_dir / "last.pt");
  ensure_writable(checkpoint);
  write_file_atomically(run_dir / "config.toml", config_toml);
  return run_dir;
}
}  // namespace

RunOutputs::RunOutputs(fs::path run_dir, fs::path checkpoint, const std::string& config_toml)
    : run_dir_(prepared(std::move(run_dir), checkpoint, config_toml)),
      checkpoint_(std::move(checkpoint)),
      csv_(run_dir_ / "metrics.csv") {}

void RunOutputs::save_latest(const std::string& bytes) {
  write_file_atomically(run_dir_ / "last.pt", bytes);
  write_file_atomically(checkpoint_, bytes);
}

void RunOutputs::epoch_done(const EpochMetrics& metrics, const std::string& bytes, bool best) {
  csv_.write(metrics);
  save_latest(bytes);
  if (best) write_file_atomically(this->best(), bytes);
}

fs::path default_run_dir(const std::string& model) {
  const std::time_t now = std::time(nullptr);
  std::tm tm{};
  localtime_r(&now, &tm);
  char stamp[32];
  std::strftime(stamp, sizeof(stamp), "%Y%m%d-%H%M%S", &tm);
  return fs::path("runs") / fmt::format("{}-{}", stamp, model);
}

}  // namespace cifar
