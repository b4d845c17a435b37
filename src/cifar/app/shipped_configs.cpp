// shipped_configs.cpp: where the configs that come with the tools are, for
// --config's message when the file given is not there (app/cli.h). An
// installed tool finds them beside its bin/ (cmake --install puts configs/
// in share/cifar-train/configs); a tool run from its build tree, in the
// source tree it was built from (CIFAR_SOURCE_CONFIGS, in this file only:
// src/CMakeLists.txt).
#include <fmt/format.h>

#include <filesystem>
#include <string>
#include <system_error>

#include "cifar/app/cli.h"

namespace cifar {
namespace fs = std::filesystem;

std::vector<fs::path> shipped_config_dirs() {
  std::vector<fs::path> dirs;
  std::error_code ec;
  const fs::path exe = fs::read_symlink("/proc/self/exe", ec);
  if (!ec) dirs.push_back(exe.parent_path().parent_path() / "share" / "cifar-train" / "configs");
  dirs.emplace_back(CIFAR_SOURCE_CONFIGS);
  return dirs;
}

std::string shipped_config_hint(const std::string& given) {
  fs::path name = fs::path(given).filename();
  if (name.empty()) return "";
  if (!name.has_extension()) name += ".toml";
  std::error_code ec;
  for (const fs::path& dir : shipped_config_dirs()) {
    if (fs::is_regular_file(dir / name, ec)) {
      return fmt::format(": the tools' own {} is {}", name.string(), (dir / name).string());
    }
  }
  return "";
}

fs::path shipped_configs_shown() {
  std::error_code ec;
  for (const fs::path& dir : shipped_config_dirs()) {
    if (!fs::is_directory(dir, ec)) continue;
    const fs::path near = fs::proximate(dir, ec);
    if (!ec && !near.empty() && *near.begin() != "..") return near;
    return fs::weakly_canonical(dir, ec);
  }
  return "configs";
}

}  // namespace cifar
