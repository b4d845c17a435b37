// parse_train.h: a cifar-train command line (and the config file it names
// with --config) parsed into a TrainConfig, as the tool parses it, for the
// config tests.
#pragma once

#include <CLI/CLI.hpp>
#include <algorithm>
#include <string>
#include <vector>

#include "cifar/config/config.h"
#include "cifar/config/config_file.h"

namespace cifar::test {

// Parses a command line (and a config file, if it names one) into a config.
inline TrainConfig parse(std::vector<std::string> args) {
  TrainConfig c;
  CLI::App app;
  add_config_option(app, "config file");
  app.option_defaults()->multi_option_policy(CLI::MultiOptionPolicy::TakeLast);
  add_train_options(app, c);
  std::reverse(args.begin(), args.end());  // CLI11 takes them last-first
  app.parse(args);
  return c;
}

}  // namespace cifar::test
