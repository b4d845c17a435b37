// file_identity.h: no output may be the same file as an input or another output.
//
// Each tool names the files it reads and the files it writes, each with the
// option (or run-folder role) it came from, and calls check_distinct_files
// once before it writes anything. Two names are the same file when, after
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
};

// Throws UsageError naming both roles and paths when an output is the same
// file as an input or as another output; inputs may share files freely.
// Entries with an empty path (an option not given) are skipped.
void check_distinct_files(const std::vector<NamedFile>& inputs,
                          const std::vector<NamedFile>& outputs);

}  // namespace cifar
