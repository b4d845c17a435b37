// file_identity.h: no output may be the same file as an input or another output.
//
// Each tool names the files it reads and the files it writes, each with the
// option (or run-folder role) it came from, and refuses what
// distinct_files_problem finds (config/settings_check.h: check_distinct_files;
// resolve/run_spec.cpp) before it writes anything. Two names are the same file when, after
// resolving symbolic links, they have the same device and inode (hard links
// and links included), or when they are the same entry of the same folder
// (the folder compared by device and inode, so "run/../run/x" and a linked
// folder count). Spelling does not matter; an output that does not exist
// yet is compared by its folder and name.
#pragma once

#include <filesystem>
#include <string>
#include <vector>

namespace cifar {

struct NamedFile {
  std::string role;  // how the user named it: "--checkpoint", "--out", "the run's best.pt"
  std::filesystem::path path;
  // What a run continues, when it is one (kContinuedCheckpoint,
  // kContinuedSettings): an input of a kind that an output of the same kind
  // may replace. Empty for every other file.
  std::string continues{};
};

// The checkpoint a run goes on from (--resume), which its own checkpoints
// (--checkpoint, last.pt, best.pt) replace as it goes on.
inline constexpr const char* kContinuedCheckpoint = "checkpoint";
// The settings a run was started from (--config RUN/config.toml), which the
// run's config.toml replaces with the settings as resolved.
inline constexpr const char* kContinuedSettings = "settings";

// A sentence naming both roles and paths when an output is the same file as
// an input or as another output; "" when none is. Inputs may share files freely, and
// an output may be an input that continues the same thing (a resumed run
// goes on in the checkpoint and config.toml it was started from); nothing
// else may replace an input. Entries with an empty path (an option not
// given) are skipped.
std::string distinct_files_problem(const std::vector<NamedFile>& inputs,
                                   const std::vector<NamedFile>& outputs);

}  // namespace cifar
