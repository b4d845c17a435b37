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
//   - note_if_replacing_other_run: before a run first replaces a checkpoint
//     path, one line saying what the file held if another run wrote it.
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

// --overwrite: removes the results run_dir_refusal objects to (none when it
// finds nothing) and returns their names, for a log line. Call it while
// holding the folder's RunDirLock.
std::vector<std::string> clear_run_dir(const std::filesystem::path& dir,
                                       const std::optional<ResumedRun>& resumed);

// A new run's identity for CheckpointInfo::run_id: the run folder's absolute
// path, the UTC start time (microseconds) and the process id.
std::string make_run_id(const std::filesystem::path& run_dir);

// If `path` holds a checkpoint that a run other than `run_id` wrote, one line
// saying what it held, e.g. "replacing net.pt (net, epoch 2, test accuracy
// 53.6%) written by another run", with "; its run folder DIR keeps that
// run's best.pt" when it does; also a line for a file that is not a
// readable checkpoint. nullopt when there is no file or this run wrote it.
// Reads only the file's header.
std::optional<std::string> note_if_replacing_other_run(const std::filesystem::path& path,
                                                       const std::string& run_id);

// --- What an output may replace -------------------------------------------------
// An output replaces only a file that is its tool's own output. These say
// what an existing file is, for the refusals (report/run_outputs,
// io/weights_export).

// "a folder", "a character device", "a FIFO", ... for what is at `path`
// (links followed), "" for a regular file or nothing at all.
std::string non_file_kind(const std::filesystem::path& path);

// The run folder `path` is a file of: its folder, when that holds a run's
// lock file or a config.toml that cifar-train wrote.
std::optional<std::filesystem::path> run_folder_of(const std::filesystem::path& path);

// The run folder a checkpoint's run_id names (make_run_id's first part).
std::filesystem::path run_folder_of_id(const std::string& run_id);

// Why cifar-train may not replace the file at `path` with a checkpoint of
// the run in run folder `run_dir` (`option` names the path for the
// message, e.g. "--checkpoint"), or "" when it may: nothing is there, or
// one of cifar-train's checkpoints that is not another run folder's file
// and not being written by a run still training in another folder (the
// same run resumed elsewhere included).
std::string checkpoint_replace_problem(const std::filesystem::path& path, const std::string& option,
                                       const std::filesystem::path& run_dir);

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
