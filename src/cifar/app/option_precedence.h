// option_precedence.h: which of cifar-train's options wins when the command
// line and a --config file set options that contradict each other.
//
// CLI11 lets the command line override the config file option by option. A
// few options come in pairs that say one thing two ways: --time and --steps
// both set a run's length; --init-weights-sha256 is a digest of the file
// --init-weights names. Given on the command line, one of a pair replaces
// the config file's other, with a line saying so (photos.toml's steps = 48
// under --time 2; a run's config.toml rerun from another --init-weights).
#pragma once

#include <CLI/CLI.hpp>
#include <cstdint>
#include <string>

namespace cifar {

// Whether the command line (not the --config file) gave option `name`.
bool given_on_command_line(const CLI::App& app, const char* name);

// --time and --steps: the command line's replaces the config file's other.
// Both on the command line, or both in the file, are left for validate() to
// refuse.
void settle_run_length(const CLI::App& app, double& time_minutes, int64_t& steps);

// An --init-weights given on the command line replaces the config file's,
// and so the digest the file recorded of it, unless the command line gives
// one too (a digest the file pins without naming a file stays).
void settle_weights_digest(const CLI::App& app, std::string& init_weights_sha256);

}  // namespace cifar
