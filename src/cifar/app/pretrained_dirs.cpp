// pretrained_dirs.cpp: where --pretrained looks (app/cli.h). The build names
// the site-packages folder of its LibTorch (CIFAR_PYTHON_SITE_PACKAGES, in
// this file only: src/CMakeLists.txt).
#include <cstdlib>
#include <sstream>
#include <string>

#include "cifar/app/cli.h"

namespace cifar {

std::vector<std::filesystem::path> pretrained_dirs_from_environment() {
  std::vector<std::filesystem::path> dirs;
  // Set but empty counts as unset, as PYTHONPATH does.
  if (const char* path = std::getenv("CIFAR_PRETRAINED_PATH"); path != nullptr && *path != '\0') {
    std::istringstream in(path);
    for (std::string dir; std::getline(in, dir, ':');) {
      if (!dir.empty()) dirs.emplace_back(dir);
    }
    return dirs;
  }
  const std::string site_packages = CIFAR_PYTHON_SITE_PACKAGES;
  if (!site_packages.empty()) dirs.emplace_back(site_packages);
  return dirs;
}

}  // namespace cifar
