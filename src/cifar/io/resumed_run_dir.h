// resumed_run_dir.h: a resumed run goes on only in a folder that is its own.
//
// A resumed run appends to its folder's metrics.csv and replaces its
// last.pt, best.pt, config.toml and confusion.csv. That is right only in a
// folder that holds the same run (its last.pt, and best.pt, carry the
// checkpoint's run_id) no further than the checkpoint: a folder moved away
// and reused by another run, or an older copy of the checkpoint resumed in
// a folder that went on without it, would lose or mix epochs; so would a
// checkpoint trained further in another folder (a copy resumed there) and
// brought back to a folder that stops before it: its epochs from the other
// folder would be missing from this one's metrics.csv. What a kill
// leaves is the run's own and goes on: a metrics row written just before its
// checkpoint (one epoch past the checkpoint's), and last.pt written just
// before --checkpoint (up to the end of the checkpoint's epoch, when the
// checkpoint resumed is that --checkpoint). run_dir.h's
// run_dir_refusal names anything else (resolve/ refuses it), or with
// --overwrite clear_run_dir replaces it.
#pragma once

#include <cstdint>
#include <filesystem>
#include <string>
#include <string_view>
#include <vector>

namespace cifar {

// metrics.csv's header row (a run of more than ten classes adds a top-5
// column); a file that does not start with its first columns (older
// versions wrote fewer after them) is not one cifar-train wrote.
inline constexpr std::string_view kMetricsCsvHeader =
    "epoch,train_loss,train_accuracy,test_loss,test_accuracy,lr,seconds,images_per_second,"
    "eval_seconds,peak_memory_bytes,val_loss,val_accuracy";
inline constexpr std::string_view kMetricsCsvFirstColumns = "epoch,train_loss,train_accuracy,";

// The run a resumed run continues: its id and where its checkpoint stands.
struct ResumedRun {
  std::string run_id{};
  int64_t epochs = 0;         // epochs the checkpoint holds
  int64_t step_in_epoch = 0;  // > 0: written mid-epoch
  std::string checkpoint{};   // the --resume file, as given (for messages)
  // The checkpoint is the run's own --checkpoint, which a run writes right
  // after last.pt: a kill between the two leaves last.pt one save ahead.
  bool written_after_last = false;
  // The run folder the checkpoint's settings name (where it was trained to
  // where it stands), for the message; empty if unknown.
  std::string trained_in{};
};

struct ResumedDirProblem {
  std::string text;    // empty: the folder is the run's to go on in
  bool ahead = false;  // it holds the same run, further on than the checkpoint
  // Another run's folder: its newest checkpoint ("last.pt", or "best.pt"
  // after a kill between the two), which goes on with the folder's own run.
  std::string own_checkpoint = {};
};

// Why `dir` is not provably the folder to go on with run `run` in: one line
// naming the folder's run and epochs (its last.pt's position, metrics.csv's
// epochs) and the checkpoint's, or a metrics.csv that is not one cifar-train
// wrote (a run appends to it); empty when the folder holds no results or is
// the run's own, as above.
ResumedDirProblem resumed_run_dir_problem(const std::filesystem::path& dir, const ResumedRun& run);

// The epochs of `dir`'s metrics.csv's whole rows (none without the file),
// and why it is no file cifar-train wrote ("" when it is missing, empty or
// starts with the header).
std::vector<int64_t> metrics_epochs(const std::filesystem::path& dir);
std::string foreign_metrics(const std::filesystem::path& dir);

}  // namespace cifar
