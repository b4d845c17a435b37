// option_suggestion.h: the option a mistyped one most likely meant
// ("--epoch": "--epochs"), as git and cargo suggest, for the command line
// (app/help_format.h) and a config file's keys (config_file.h).
#pragma once

#include <CLI/CLI.hpp>

#include <string>

namespace cifar {

// The closest long option of `app` to `typed` (a "--name" that is not one of
// its options, "=value" allowed), when one is close enough to be a typo or
// typed is a unique prefix of one; "" otherwise. `config_keys`: only the
// options a config file may set (not --help, --version, --config).
std::string suggest_option(const CLI::App& app, const std::string& typed, bool config_keys = false);

// "--name" of "--name=value".
std::string option_name(const std::string& arg);

}  // namespace cifar
