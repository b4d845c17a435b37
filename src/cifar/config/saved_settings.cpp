// saved_settings.cpp: config.h's from_toml, settings saved by to_toml (a
// checkpoint's) read back through cifar-train's own options.
//
// Built as a file of its own, without -Wnull-dereference (src/CMakeLists.txt):
// GCC 12 flags CLI11's string splitting (CLI::detail::split) that the parse
// inlines here, none of this file's lines.
#include <fmt/format.h>

#include <CLI/CLI.hpp>
#include <algorithm>
#include <set>

#include "cifar/config/config.h"
#include "cifar/config/config_file.h"
#include "cifar/core/errors.h"

namespace cifar {

TrainConfig from_toml(const std::string& toml) {
  TrainConfig config;
  CLI::App app;
  add_train_options(app, config);
  std::set<std::string> saved;  // the keys to_toml writes
  for (const auto& [key, role] : train_setting_roles()) saved.insert(key);
  std::vector<std::string> args;
  for (const TomlEntry& e : read_settings_toml(toml)) {
    if (!saved.contains(e.key)) continue;  // a setting since dropped
    const bool flag = app.get_option("--" + e.key)->get_expected_max() == 0;
    if (flag != (e.type == TomlType::kBoolean)) {
      throw UsageError(fmt::format("saved setting {} = {} (line {}): {}", e.key, e.value, e.line,
                                   flag ? "a flag takes true or false" : "not a boolean option"));
    }
    if (flag) {
      args.push_back((e.value == "true" ? "--" : "--no-") + e.key);
    } else if (!e.value.empty()) {  // empty text: unset, as to_toml leaves it out
      args.push_back(fmt::format("--{}={}", e.key, e.value));
    }
  }
  std::reverse(args.begin(), args.end());  // CLI11 takes them last first
  try {
    app.parse(args);  // each value checked as on the command line
  } catch (const CLI::ParseError& e) {
    throw UsageError(fmt::format("saved settings: {}", e.what()));
  }
  return config;
}

}  // namespace cifar
