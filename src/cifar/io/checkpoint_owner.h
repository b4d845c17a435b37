// checkpoint_owner.h: whose a checkpoint file is, and so whether a run may
// replace it.
//
// A checkpoint records the run that wrote it (CheckpointInfo::run_id: the
// run folder's absolute path, start time and pid, io/run_dir.h:
// make_run_id). Before a run writes a checkpoint path it asks
// checkpoint_replace_problem whether the file there is its tool's own output
// and no other live run's; when it first replaces one another run wrote,
// note_if_replacing_other_run gives the line that says what the file held.
#pragma once

#include <filesystem>
#include <optional>
#include <string>

namespace cifar {

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

// "a folder", "a character device", "a FIFO", "a symbolic link to X, which
// is missing", ... for what is at `path` (links followed), "" for a regular
// file or nothing at all.
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

}  // namespace cifar
