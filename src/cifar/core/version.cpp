// version.cpp: the one file that sees the version define.
#include "cifar/core/version.h"

#include <torch/version.h>

namespace cifar {

const char* tool_version() {
  return CIFAR_VERSION;
}

const char* libtorch_version() {
  return TORCH_VERSION;
}

std::string version_line(const std::string& tool) {
  return tool + " " + tool_version() + " (LibTorch " + libtorch_version() + ")";
}

}  // namespace cifar
