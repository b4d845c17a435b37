// file_io.h: reading and writing whole files, with errors that name the cause.
//
// Every file the tools read (data batches, class names, checkpoints,
// weights, images) is opened by open_regular_file, which tells apart the
// four ways a read goes wrong: the path does not exist, it is not a regular
// file (a folder, a device such as /dev/zero, a FIFO: refused, never waited
// on), permission is denied (on the file, or on a folder on the way to it),
// or it is larger than the caller accepts. Each message names the path
// once, as the user gave it. Writes are atomic (temporary file in the same
// folder, fsync, rename), so a kill at any moment leaves the old file whole.
#pragma once

#include <cstdint>
#include <filesystem>
#include <span>
#include <string>
#include <string_view>
#include <vector>

namespace cifar {

// PATH made absolute and normal ("run/../x/" -> "/cwd/x/"), without resolving
// links: how the tools write a path into saved settings and compare two.
inline std::filesystem::path absolute_path(const std::filesystem::path& path) {
  return std::filesystem::absolute(path).lexically_normal();
}

// Checks that `path` is an existing regular file this process may read and
// returns its size; throws std::runtime_error saying which check failed.
// `what` names the file's role in messages ("checkpoint", "CIFAR-10 batch
// file"); `missing_hint`, when not empty, follows the "does not exist"
// message (how to get the file).
uint64_t check_readable_file(const std::filesystem::path& path, const std::string& what,
                             const std::string& missing_hint = "");

// The same for a folder that files will be read from.
void check_readable_directory(const std::filesystem::path& path, const std::string& what,
                              const std::string& missing_hint = "");

// Opens the regular file at `path` for reading (checked as above, then
// again on the descriptor: a FIFO or device is refused, never waited on) and
// returns its descriptor, which the caller closes. Every file the tools read
// is opened here.
int open_regular_file(const std::filesystem::path& path, const std::string& what,
                      const std::string& missing_hint = "");

// " (it is a symbolic link to TARGET, which is missing)" when `path` is a
// link whose target is gone, else "": said where a missing file is named.
std::string dangling_link_note(const std::filesystem::path& path);

// Reads the whole regular file at `path` (opened as above), refusing one
// larger than max_bytes.
std::string read_file(const std::filesystem::path& path, uint64_t max_bytes,
                      const std::string& what, const std::string& missing_hint = "");

// The first max_bytes of the regular file at `path` (all of it if shorter);
// with `whole`, a file of max_bytes or more is refused instead.
std::string read_front(const std::filesystem::path& path, uint64_t max_bytes,
                       const std::string& what, const std::string& missing_hint = "",
                       bool whole = false);

// Writes bytes to path atomically (temporary file, fsync, rename). Errors
// name `path`, never the temporary file, and end with a hint naming
// `option`, the option that chose the path ("--checkpoint", "--run-dir",
// "--out"; empty: a hint without one).
void write_file_atomically(const std::filesystem::path& path, const std::string& bytes,
                           const std::string& option = "");
// The same for a file written from pieces, one after another (no copy of them all).
void write_file_atomically(const std::filesystem::path& path,
                           const std::vector<std::span<const char>>& pieces,
                           const std::string& option = "");

// The file a temporary file of write_file_atomically stands for: "last.pt"
// for ".last.pt.tmp1a2b3c4d" (the name cut to 64 bytes, as it is made), ""
// for any other name. For sweeping those a killed process left.
std::string temp_file_target(std::string_view file_name);

// Checks, before anything is written, that a file can be created at path:
// creates its folder if needed (only with `make_folder`, for a file the tool
// keeps of its own, such as an image cache; an output an option names has
// a folder that exists, as torch.save, cp and tee expect: --out, --csv,
// --checkpoint) and refuses a path that is a folder. Errors name `path` as
// given, once, and `option` as above.
void ensure_writable(const std::filesystem::path& path, const std::string& option = "",
                     bool make_folder = true);

}  // namespace cifar
