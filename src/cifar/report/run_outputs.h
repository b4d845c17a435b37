// run_outputs.h: what a training run leaves behind, and when it writes it.
//
// A run folder holds config.toml (the resolved settings), metrics.csv (one
// row per epoch), confusion.csv (the last epoch's test confusion matrix, for
// scripts/plot-run), a TensorBoard event file, last.pt and best.pt;
// --checkpoint names one more copy of the latest state. With several
// processes only rank 0 has a RunOutputs. RunOutputs is created only once the inputs are known good
// (data read, checkpoint to resume loaded), checks that every output can be
// written before any training starts, and writes each file atomically.
#pragma once

#include <chrono>
#include <filesystem>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "cifar/formats/tensorboard.h"
#include "cifar/io/run_dir.h"
#include "cifar/report/metrics.h"
#include "cifar/report/reporting.h"

namespace cifar {

// Why this run cannot write its outputs ("" when it can): an output that is
// one of `inputs` or another output (run_output_files), a --checkpoint that
// is not cifar-train's own to replace (checkpoint_replace_problem), an output
// that is not a file, a run folder that holds another run's results, unless
// `overwrite` (io/run_dir.h: run_dir_refusal). resolve/ refuses the run with
// it before anything is written; RunOutputs checks again under the lock.
std::string run_outputs_problem(const std::filesystem::path& run_dir,
                                const std::filesystem::path& checkpoint,
                                const std::optional<ResumedRun>& resumed, bool overwrite,
                                const std::vector<NamedFile>& inputs);

class RunOutputs {
 public:
  // Locks the run folder for this run's lifetime (another run on it fails at
  // once); std::runtime_error if run_outputs_problem finds anything now
  // (resolve/ refused it before: the folder changed since); with `overwrite`,
  // removes another run's results once every output is known writable
  // (for a resumed run, anything but `resumed`'s own run no further than
  // its checkpoint: resumed_run_dir.h); writes config.toml and opens
  // metrics.csv (appending when resuming into the same folder, after the
  // rows of the epochs `resumed` holds).
  // TensorBoard's records reach the file at most every `flush_every_s`
  // seconds (the progress lines' --log-interval) and at each checkpoint.
  RunOutputs(std::filesystem::path run_dir, std::filesystem::path checkpoint,
             const std::string& config_toml, bool tensorboard, double flush_every_s,
             const std::optional<ResumedRun>& resumed, bool overwrite,
             const std::vector<NamedFile>& inputs);

  const std::filesystem::path& run_dir() const { return run_dir_; }
  const std::filesystem::path& checkpoint() const { return checkpoint_; }
  std::filesystem::path best() const { return run_dir_ / "best.pt"; }
  // Where the latest state is: --checkpoint, or last.pt once another run
  // took --checkpoint over (save_latest).
  std::filesystem::path latest() const {
    return write_checkpoint_ ? checkpoint_ : run_dir_ / "last.pt";
  }
  std::filesystem::path config_file() const { return run_dir_ / "config.toml"; }

  // The latest state: last.pt and --checkpoint (an interrupt, an epoch's end).
  void save_latest(const std::string& checkpoint_bytes);
  // The run's start, for TensorBoard: the settings as text and the
  // hyperparameters (HPARAMS tab, whose metrics are the test figures, or
  // the validation figures in a run without a test split), at `global_step`.
  // A run resumed at global_step > 0 first drops the folder's records past
  // it (a killed run's steps after its checkpoint: tensorboard_trim.h).
  void started(const std::string& config_toml, const std::vector<HParam>& hparams,
               int64_t global_step, bool has_test_split = true);
  // The run's settings changed on the way (--time's fitted epochs): config.toml anew.
  void settings_changed(const std::string& config_toml);
  // A progress refresh: the running training loss (flushed when
  // flush_every_s have passed since the last flush).
  void running_loss(int64_t global_step, double loss);
  // An epoch's end: its metrics row, TensorBoard's scalars, per-class
  // accuracies and confusion heat map, confusion.csv, then the checkpoints
  // (best.pt too when best). Everything is flushed.
  // `test` is null on an epoch without evaluation (--eval-every), and on
  // every epoch of a run without a test split: then no test figure, no
  // confusion.csv and no heat map is written.
  void epoch_done(const EpochMetrics& metrics, const EvalResult* test,
                  const std::vector<std::string>& class_names, const std::string& checkpoint_bytes,
                  bool best);
  // The run ended (completed, or stopped): closes the HPARAMS session.
  void finished(bool success);

 private:
  void drop_steps_after(int64_t global_step);

  RunDirLock lock_;  // first: taken before anything in the folder is touched
  std::filesystem::path run_dir_;
  std::filesystem::path checkpoint_;
  bool write_checkpoint_ = true;  // false once another run took --checkpoint over
  MetricsCsv csv_;
  std::unique_ptr<TensorBoardWriter> board_;  // null with --no-tensorboard
  double flush_every_s_;
  std::chrono::steady_clock::time_point flushed_ = std::chrono::steady_clock::now();
};

}  // namespace cifar
