// version.h: the tool's and LibTorch's versions, for --version and the files
// the tool writes. Defined in version.cpp only, so that a new version number
// recompiles one file (and not the precompiled header).
#pragma once

#include <string>

namespace cifar {

const char* tool_version();      // e.g. "0.2.0"
const char* libtorch_version();  // e.g. "2.11.0"

// "cifar-train 0.2.0 (LibTorch 2.11.0)"
std::string version_line(const std::string& tool);

}  // namespace cifar
