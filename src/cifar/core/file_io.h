// file_io.h: reading and writing whole files, with errors that name the cause.
//
// Every file cifar-train reads whole (data batches, checkpoints) goes through
// read_file, which tells apart the four ways a read goes wrong: the path does
// not exist, it is not a regular file (a folder, a device such as /dev/zero,
// a FIFO), permission is denied (on the file, or on a folder on the way to
// it), or it is larger than the caller accepts. Each message names the path
// once, as the user gave it. Writes are atomic (temporary file in the same
// folder, fsync, rename), so a kill at any moment leaves the old file whole.
#pragma once

#include <cstdint>
#include <filesystem>
#include <string>

namespace cifar {

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

// Reads the whole regular file at `path` (checked as above), refusing one
// larger than max_bytes.
std::string read_file(const std::filesystem::path& path, uint64_t max_bytes,
                      const std::string& what, const std::string& missing_hint = "");

// Writes bytes to path atomically (temporary file, fsync, rename). Errors
// name `path`, never the temporary file.
void write_file_atomically(const std::filesystem::path& path, const std::string& bytes);

// Checks, before any training starts, that a file can be created at path:
// creates its folder if needed and refuses a path that is a folder. Errors
// name `path` as given, once.
void ensure_writable(const std::filesystem::path& path);

}  // namespace cifar
