// run_outputs.cpp: the run folder and the checkpoint files.
#include "cifar/report/run_outputs.h"

#include <fmt/format.h>
#include <spdlog/spdlog.h>

#include <ctime>

#include "cifar/io/checkpoint.h"
#include "cifar/report/confusion_file.h"
#include "cifar/report/tensorboard_epoch.h"

namespace cifar {
namespace fs = std::filesystem;

namespace {
// Every output is checked writable before config.toml is written and
// metrics.csv opened.
fs::path prepared(fs::path run_dir, const fs::path& checkpoint, const std::string& config_toml,
                  bool fresh, bool overwrite, const std::vector<NamedFile>& inputs) {
  const std::vector<NamedFile> outputs = run_output_files(run_dir, checkpoint);
  check_distinct_files(inputs, outputs);
  if (fresh) {
    for (const auto& file : prepare_fresh_run_dir(run_dir, overwrite)) {
      spdlog::warn("--overwrite: removed {} from {}", file, run_dir.string());
    }
  }
  for (const auto& output : outputs) ensure_writable(output.path);
  write_file_atomically(run_dir / "config.toml", config_toml);
  return run_dir;
}
}  // namespace

RunOutputs::RunOutputs(fs::path run_dir, fs::path checkpoint, const std::string& config_toml,
                       bool tensorboard, bool fresh, bool overwrite,
                       const std::vector<NamedFile>& inputs)
    : lock_(run_dir),
      run_dir_(prepared(std::move(run_dir), checkpoint, config_toml, fresh, overwrite, inputs)),
      checkpoint_(std::move(checkpoint)),
      csv_(run_dir_ / "metrics.csv"),
      board_(tensorboard ? std::make_unique<TensorBoardWriter>(run_dir_) : nullptr) {}

void RunOutputs::started(const std::string& config_toml, const std::vector<HParam>& hparams,
                         int64_t global_step) {
  if (!board_) return;
  std::string code;  // indented: TensorBoard's text plugin shows it as a code block
  for (size_t at = 0; at < config_toml.size();) {
    const size_t end = config_toml.find('\n', at);
    code += "    " + config_toml.substr(at, end - at) + "\n";
    at = end == std::string::npos ? config_toml.size() : end + 1;
  }
  board_->text("config", code, global_step);
  board_->hparams_start(hparams, {"epoch/test_accuracy", "epoch/test_loss"});
  board_->flush();
}

void RunOutputs::running_loss(int64_t global_step, double loss) {
  if (board_) board_->scalar("train/running_loss", loss, global_step);
}

void RunOutputs::finished(bool success) {
  if (!board_) return;
  board_->hparams_end(success);
  board_->flush();
}

void RunOutputs::save_latest(const std::string& bytes) {
  write_file_atomically(run_dir_ / "last.pt", bytes);
  write_file_atomically(checkpoint_, bytes);
}

void RunOutputs::epoch_done(const EpochMetrics& metrics, const EvalResult* test,
                            const std::vector<std::string>& class_names, const std::string& bytes,
                            bool best) {
  csv_.write(metrics);
  if (board_) write_tensorboard_epoch(*board_, metrics, test, class_names);
  if (test != nullptr) {
    write_confusion_csv(run_dir_ / "confusion.csv", test->confusion, class_names);
  }
  save_latest(bytes);
  if (best) write_file_atomically(this->best(), bytes);
}

std::vector<NamedFile> run_output_files(const fs::path& run_dir, const fs::path& checkpoint) {
  std::vector<NamedFile> files;
  for (const char* name : {"config.toml", "metrics.csv", "confusion.csv", "last.pt", "best.pt",
                           "model.safetensors", kRunDirLockFile}) {
    files.push_back({fmt::format("the run's {}", name), run_dir / name});
  }
  files.push_back({"--checkpoint", checkpoint});
  return files;
}

fs::path default_run_dir(const std::string& model) {
  const std::time_t now = std::time(nullptr);
  std::tm tm{};
  localtime_r(&now, &tm);
  char stamp[32];
  std::strftime(stamp, sizeof(stamp), "%Y%m%d-%H%M%S", &tm);
  // Two runs started in the same second get folders of their own.
  fs::path dir = fs::path("runs") / fmt::format("{}-{}", stamp, model);
  for (int n = 2; fs::exists(dir); ++n)
    dir = fs::path("runs") / fmt::format("{}-{}-{}", stamp, model, n);
  return dir;
}

}  // namespace cifar
