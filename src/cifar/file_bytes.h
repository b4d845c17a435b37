// file_bytes.h: reading a whole (bounded) file into memory, with errors that
// name the file and say what kind of file was expected.
#pragma once

#include <cstdint>
#include <filesystem>
#include <string>

namespace cifar {

// Reads `path` whole. `what` names the expected content in messages ("weights
// file", "image"). Refuses a missing file, a directory and a file larger than
// `max_bytes` (std::runtime_error).
std::string read_file_bytes(const std::filesystem::path& path, const std::string& what,
                            uint64_t max_bytes = uint64_t{1} << 34);

}  // namespace cifar
