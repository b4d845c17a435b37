// parse_messages.h: what a refused command line or config file says: the
// --config checks made before CLI11 parses, CLI11's messages in the tools'
// words, and where in the config file a refused value came from.
#pragma once

#include <CLI/CLI.hpp>
#include <string>

namespace cifar {

// The value of --config on the command line, if any (the last one).
std::string config_argument(int argc, char** argv);

// Before CLI11 reads it: one --config, not empty, naming a file (a missing
// one, or a link to one, said as such); then the file's own checks. Throws
// UsageError.
void check_config_argument(int argc, char** argv);

// CLI11's "--epochs: must be at least 1, got 0" as "--epochs must be ...",
// and an option given without its value said as such.
std::string tidy(const std::string& message);

// Where a value CLI11 refused came from when a config file was read:
// " (--config FILE, line N)" when the file set it, "" when the command line
// did, else " (in or with --config FILE)".
std::string config_place(const CLI::App& app, const std::string& message, int argc, char** argv);

// Whether the --config file read set option `name` (a line of its own),
// whatever the command line gave.
bool set_by_config_file(const CLI::App& app, const char* name);

// The same for a refusal made after parsing: " (--config FILE, line N)" when
// the option it is about was set by the config file alone, " (--config FILE:
// model at line 1, image-size at line 3)" for the options it names that the
// file set, else "".
std::string file_place(const CLI::App& app, const std::string& message, int argc, char** argv);

}  // namespace cifar
