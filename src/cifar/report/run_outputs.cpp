// run_outputs.cpp: the run folder and the checkpoint files.
#include "cifar/report/run_outputs.h"

#include <fmt/format.h>
#include <spdlog/spdlog.h>

#include <algorithm>
#include <stdexcept>

#include "cifar/core/errors.h"
#include "cifar/core/file_io.h"
#include "cifar/core/names.h"
#include "cifar/formats/tensorboard_trim.h"
#include "cifar/io/checkpoint.h"
#include "cifar/io/checkpoint_owner.h"
#include "cifar/report/confusion_file.h"
#include "cifar/report/tensorboard_epoch.h"

namespace cifar {
namespace fs = std::filesystem;

std::string run_outputs_problem(const fs::path& run_dir, const fs::path& checkpoint,
                                const std::optional<ResumedRun>& resumed, bool overwrite,
                                const std::vector<NamedFile>& inputs) {
  const std::vector<NamedFile> outputs = run_output_files(run_dir, checkpoint);
  if (std::string problem = distinct_files_problem(inputs, outputs); !problem.empty()) {
    return problem;
  }
  if (std::string problem = checkpoint_replace_problem(checkpoint, "--checkpoint", run_dir);
      !problem.empty()) {
    return problem;
  }
  for (const auto& output : outputs) {
    if (const std::string kind = non_file_kind(output.path); !kind.empty()) {
      return fmt::format(
          "{} {} is {}, not a file cifar-train wrote; remove it, or choose another --run-dir",
          output.role, output.path.string(), kind);
    }
  }
  return overwrite ? "" : run_dir_refusal(run_dir, resumed);
}

namespace {
// Every output is checked writable before config.toml is written and
// metrics.csv opened.
// Nothing is removed or written before every check has passed.
fs::path prepared(fs::path run_dir, const fs::path& checkpoint, const std::string& config_toml,
                  const std::optional<ResumedRun>& resumed, bool overwrite,
                  const std::vector<NamedFile>& inputs) {
  // Refused before the run started (resolve/run_spec.cpp); found now, under
  // the folder's lock, it came since: another process changed the folder.
  if (const std::string problem =
          run_outputs_problem(run_dir, checkpoint, resumed, overwrite, inputs);
      !problem.empty()) {
    throw std::runtime_error(problem + " (found as the run folder was opened)");
  }
  for (const auto& output : run_output_files(run_dir, checkpoint)) {
    // The run folder exists (lock_); --checkpoint's folder must too.
    ensure_writable(output.path, output.role.starts_with("--") ? output.role : "--run-dir",
                    /*make_folder=*/false);
  }
  if (overwrite) {
    for (const auto& file : clear_run_dir(run_dir, resumed)) {
      spdlog::warn("--overwrite: removed {} from {}", file, run_dir.string());
    }
  }
  // What a run that stopped in its first epoch left (a fresh run's, or a
  // resumed one's in a new folder): replaced, its TensorBoard file too. Also
  // under --overwrite, which finds nothing to refuse there.
  if (const auto files = clear_failed_start(run_dir); !files.empty()) {
    spdlog::info("{}: replacing what a run that stopped in its first epoch left ({})",
                 run_dir.string(), listed_results(files));
  }
  const std::string run_id = resumed ? resumed->run_id : "";
  if (auto note = note_if_replacing_other_run(checkpoint, run_id)) spdlog::warn("{}", *note);
  write_file_atomically(run_dir / "config.toml", config_toml, "--run-dir");
  return run_dir;
}
// The temporary files (".last.pt.tmp1a2b3c4d": core/file_io.h's
// temp_file_target) a run killed while writing left in its folder: the run's
// results only. Under the lock no other run writes there.
void remove_stale_temps(const fs::path& run_dir) {
  const std::vector<std::string>& results = run_result_files();
  std::error_code ec;
  int64_t removed = 0;
  for (fs::directory_iterator it(run_dir, ec), end; !ec && it != end; it.increment(ec)) {
    const std::string of = temp_file_target(it->path().filename().string());
    if (of.empty() ||
        (std::ranges::find(results, of) == results.end() && !of.starts_with(kEventFilePrefix))) {
      continue;
    }
    std::error_code removing;
    if (fs::remove(it->path(), removing)) ++removed;
  }
  if (removed > 0) {
    spdlog::info("removed {} temporary file{} a killed run left in {}", removed,
                 removed == 1 ? "" : "s", run_dir.string());
  }
}

}  // namespace

RunOutputs::RunOutputs(fs::path run_dir, fs::path checkpoint, const std::string& config_toml,
                       bool tensorboard, double flush_every_s,
                       const std::optional<ResumedRun>& resumed, bool overwrite,
                       const std::vector<NamedFile>& inputs)
    : lock_(run_dir),
      run_dir_(prepared(std::move(run_dir), checkpoint, config_toml, resumed, overwrite, inputs)),
      checkpoint_(std::move(checkpoint)),
      csv_(run_dir_ / "metrics.csv", resumed ? std::optional(resumed->epochs) : std::nullopt),
      board_(tensorboard ? std::make_unique<TensorBoardWriter>(run_dir_) : nullptr),
      flush_every_s_(flush_every_s) {
  lock_.keep();  // opened: from here the folder is the run's record, kept whatever happens
  remove_stale_temps(run_dir_);
}

void RunOutputs::settings_changed(const std::string& config_toml) {
  write_file_atomically(run_dir_ / "config.toml", config_toml, "--run-dir");
}

void RunOutputs::started(const std::string& config_toml, const std::vector<HParam>& hparams,
                         int64_t global_step, bool has_test_split) {
  if (!board_) return;
  if (global_step > 0) drop_steps_after(global_step);
  std::string code;  // indented: TensorBoard's text plugin shows it as a code block
  for (size_t at = 0; at < config_toml.size();) {
    const size_t end = config_toml.find('\n', at);
    code += "    " + config_toml.substr(at, end - at) + "\n";
    at = end == std::string::npos ? config_toml.size() : end + 1;
  }
  board_->text("config", code, global_step);
  board_->hparams_start(
      hparams, has_test_split ? std::vector<std::string>{"epoch/test_accuracy", "epoch/test_loss"}
                              : std::vector<std::string>{"epoch/val_accuracy", "epoch/val_loss"});
  board_->flush();
}

void RunOutputs::running_loss(int64_t global_step, double loss) {
  if (!board_) return;
  board_->scalar("train/running_loss", loss, global_step);
  const auto now = std::chrono::steady_clock::now();
  if (std::chrono::duration<double>(now - flushed_).count() >= flush_every_s_) {
    flushed_ = now;
    try {
      board_->flush();
    } catch (const std::runtime_error& e) {  // a full disk: the epoch goes on to its checkpoint
      spdlog::warn("{}; TensorBoard logging stops for the rest of this run", e.what());
      board_->discard();
      board_.reset();
    }
  }
}

// The folder's earlier event files lose their records past `global_step`,
// and this run's file starts with the purge marker for a TensorBoard that
// read them before.
void RunOutputs::drop_steps_after(int64_t global_step) {
  std::error_code ec;
  for (fs::directory_iterator it(run_dir_, ec), end; !ec && it != end; it.increment(ec)) {
    const fs::path& file = it->path();
    if (!file.filename().string().starts_with(kEventFilePrefix) || file == board_->path()) continue;
    try {
      if (const int64_t dropped = drop_events_after(file, global_step); dropped > 0) {
        spdlog::info(
            "TensorBoard: dropped {} records past step {} (written after the checkpoint "
            "this run resumes from) from {}",
            dropped, global_step, file.string());
      }
    } catch (const std::exception& e) {  // not a file of ours to rewrite: the run goes on
      spdlog::warn("TensorBoard: {}; its steps past {} may show twice", first_line(e.what()),
                   global_step);
    }
  }
  board_->purge_from(global_step + 1);
}

void RunOutputs::finished(bool success) {
  if (!board_) return;
  board_->hparams_end(success);
  board_->flush();
}

void RunOutputs::save_latest(const std::string& bytes) {
  write_file_atomically(run_dir_ / "last.pt", bytes, "--run-dir");
  if (!write_checkpoint_) return;
  // Checked before every write: another run may have started on it since.
  if (const std::string problem = checkpoint_replace_problem(checkpoint_, "--checkpoint", run_dir_);
      !problem.empty()) {
    write_checkpoint_ = false;
    spdlog::warn("{}; this run no longer writes it (its latest state is {})", problem,
                 (run_dir_ / "last.pt").string());
    return;
  }
  write_file_atomically(checkpoint_, bytes, "--checkpoint");
}

void RunOutputs::epoch_done(const EpochMetrics& metrics, const EvalResult* test,
                            const std::vector<std::string>& class_names, const std::string& bytes,
                            bool best) {
  try {
    csv_.write(metrics);
    if (board_) write_tensorboard_epoch(*board_, metrics, test, class_names);
    if (test != nullptr) {
      write_confusion_csv(run_dir_ / "confusion.csv", test->confusion, class_names);
    }
    // best.pt before last.pt: a write that fails, or a kill, leaves last.pt
    // at the epoch before, whose resume trains this epoch again and writes
    // best.pt then (after last.pt, the epoch would count as done and its
    // best.pt stay lost).
    if (best) write_file_atomically(this->best(), bytes, "--run-dir");
    save_latest(bytes);
    if (board_) board_->flush();           // the epoch's scalars with its checkpoint
  } catch (const std::runtime_error& e) {  // a full disk: the way on
    if (board_) board_->discard();         // the epoch's records: its resumed run writes them
    const fs::path last = run_dir_ / "last.pt";
    std::error_code ec;
    throw std::runtime_error(
        std::string(e.what()) +
        (fs::is_regular_file(last, ec)
             ? fmt::format("; the run stops here: fix that, then go on from its last checkpoint "
                           "with: cifar-train --config {} --resume {}",
                           shell_word(config_file().string()), shell_word(last.string()))
             : std::string("; the run stops before its first checkpoint: fix that, then start "
                           "it again with --overwrite")));
  }
}

}  // namespace cifar
