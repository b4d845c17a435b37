// run_dir.h: a run folder: its name and files, and that it belongs to one
// run, as checkpoints say whose they are. (report/run_outputs.h writes the
// files.)
//
// Three guards against runs that overwrite or mix:
//   - RunDirLock (run_dir_lock.h): an exclusive flock(2) on <run-dir>/.cifar-train.lock, held
//     open for the run's lifetime. The kernel drops it when the process ends
//     in any way (SIGKILL included), so a lock is never stale; a second run on
//     the same folder fails at once, naming the folder and the holder's pid.
//     The lock file stays behind once the run has opened the folder; a start
//     refused under the lock removes it, and the folder if it made it.
//   - RunDirClaim: a default folder is made (claimed) as the run is resolved,
//     so that runs started together never pick one name.
//   - run_dir_refusal: why a new (non-resume) run may not write in a folder
//     that already holds another run's results, or a resumed run in one that
//     does not provably hold its own run no further than its checkpoint,
//     unless told to overwrite them (clear_run_dir); resolve/ refuses with it.
// Which checkpoint a run may replace, and what it says when it does:
// io/checkpoint_owner.h.
#pragma once

#include <cstdint>
#include <filesystem>
#include <optional>
#include <string>
#include <vector>

#include "cifar/core/file_identity.h"
#include "cifar/io/resumed_run_dir.h"
#include "cifar/io/run_dir_lock.h"

namespace cifar {

// The files a run leaves in its folder (see docs/reference.md, "What a run leaves behind").
const std::vector<std::string>& run_result_files();
// Which of run_result_files() `dir` holds (a dangling link counts), then its
// TensorBoard event files (events.out.tfevents.*, sorted): left beside
// another run's results, TensorBoard would show the two runs as one.
std::vector<std::string> results_in(const std::filesystem::path& dir);
// results_in's names for a message: "metrics.csv, last.pt, 2 TensorBoard event files".
std::string listed_results(const std::vector<std::string>& names);

// What stops a run from writing its results in `dir` without --overwrite
// ("" when nothing does), with the ways out. A fresh run (no `resumed`):
// any of results_in() in it (resume that run, another --run-dir,
// --overwrite). A resumed run: resumed_run_dir_problem's finding (the
// folder's own last.pt, a new --run-dir, --overwrite).
std::string run_dir_refusal(const std::filesystem::path& dir,
                            const std::optional<ResumedRun>& resumed);

// Whether `path` is a config.toml cifar-train wrote (its first line says so).
bool is_cifar_train_settings(const std::filesystem::path& path);

// What a run that stopped in its first epoch (killed, out of memory, its
// loss not a number) leaves, when that is all `dir` holds: cifar-train's
// config.toml, metrics.csv without a row, TensorBoard event files, and no
// checkpoint. Nothing there is worth keeping, and a fresh run (the same
// command again), or a resumed one, replaces them without --overwrite.
// Empty otherwise.
std::vector<std::string> failed_start_leftovers(const std::filesystem::path& dir);
// Removes them (none when the folder holds more) and returns their names.
// Call it while holding the folder's RunDirLock.
std::vector<std::string> clear_failed_start(const std::filesystem::path& dir);

// --overwrite: removes the results run_dir_refusal objects to (none when it
// finds nothing) and returns their names, for a log line. Call it while
// holding the folder's RunDirLock.
std::vector<std::string> clear_run_dir(const std::filesystem::path& dir,
                                       const std::optional<ResumedRun>& resumed);

// A new run's identity for CheckpointInfo::run_id: the run folder's absolute
// path, the UTC start time (microseconds) and the process id.
std::string make_run_id(const std::filesystem::path& run_dir);

// Every file a run writes, by role: the run folder's files (lock file
// included), then --checkpoint.
std::vector<NamedFile> run_output_files(const std::filesystem::path& run_dir,
                                        const std::filesystem::path& checkpoint);

// A new run folder made for one run: runs/<date>-<time>-<model> from the
// local time now (-2, -3, ... after it when taken), made at once, so that
// runs started in the same second each take their own. When the claim ends
// with the folder still empty (a start refused before the run opened it),
// the folder goes, and runs/ too when the claim made it and it is empty.
class RunDirClaim {
 public:
  // Under `parent` (runs/); throws naming the folder it cannot make.
  RunDirClaim(const std::filesystem::path& parent, const std::string& model);
  ~RunDirClaim();
  RunDirClaim(const RunDirClaim&) = delete;
  RunDirClaim& operator=(const RunDirClaim&) = delete;
  const std::filesystem::path& dir() const { return dir_; }

 private:
  std::filesystem::path dir_;
  bool made_parent_ = false;
};

}  // namespace cifar
