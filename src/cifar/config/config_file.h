// config_file.h: --config FILE, read as TOML 1.0 (toml++) through CLI11.
//
// CLI11 2.1's own reader cuts a value at the first '#' even inside quotes and
// knows no escapes or multi-line strings, so a path holding '#' did not
// survive a run's config.toml. TomlConfig is plugged in as the app's
// config_formatter instead: the file is parsed by formats/toml_text.h and
// handed to CLI11 as key/value items, so the command line still overrides
// the file and every value passes the same checks as on the command line.
// Errors say the line (ConfigFileError); run_cli adds the file's name and
// exits 2, and names the line of a value CLI11 refuses (line_of).
#pragma once

#include <CLI/CLI.hpp>
#include <cstdint>
#include <istream>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "cifar/core/errors.h"
#include "cifar/formats/toml_text.h"

namespace cifar {

// Settings text that is not flat TOML (the TOML reader's TomlError, the same
// text), or a config file's key that is no option: the user's to fix.
// what() starts "line N"; run_cli adds the file's name.
class ConfigFileError : public UsageError {
 public:
  ConfigFileError(int64_t line, const std::string& what) : UsageError(what), line_(line) {}
  int64_t line() const { return line_; }

 private:
  int64_t line_;
};

// read_flat_toml (formats/toml_text.h) for settings: a config file, or the
// settings a run saved. ConfigFileError where the text is not flat TOML.
std::vector<TomlEntry> read_settings_toml(std::string_view document);

// A config file's value of another TOML type than its option takes: a
// ParseError naming the option, with the line (run_cli names the file).
class ConfigTypeError : public CLI::ValidationError {
 public:
  ConfigTypeError(const std::string& option, const std::string& what, int64_t line)
      : CLI::ValidationError(option, what), line_(line) {}
  int64_t line() const { return line_; }

 private:
  int64_t line_;
};

class TomlConfig : public CLI::Config {
 public:
  // `app` names the keys a file may hold (its long option names); it must
  // outlive this formatter.
  explicit TomlConfig(const CLI::App& app) : app_(&app) {}

  // ConfigFileError: a TOML syntax error, a [section] or other non-flat
  // value, or a key that is not one of the app's options; ConfigTypeError: a value of
  // another type than its option takes (types are exact: a flag a boolean,
  // a whole-number option an integer, a real-number one an integer or a
  // float, any other a string).
  std::vector<CLI::ConfigItem> from_config(std::istream& input) const override;

  // The app's given options (all, with default_also) as flat TOML.
  std::string to_config(const CLI::App* app, bool default_also, bool write_description,
                        std::string prefix) const override;

  // The line of the file last read that set `option`, if it did: for
  // messages about its value, which CLI11 checks after from_config.
  std::optional<int64_t> line_of(const CLI::Option& option) const;

 private:
  const CLI::App* app_;
  mutable std::map<std::string, int64_t> lines_;  // key -> line, of the file last read
};

// Declares --config FILE on `app`, read with TomlConfig; keys the app does not
// know are errors.
void add_config_option(CLI::App& app, const std::string& help);

// Refuses a --config that is not a regular, small text file, before it is
// parsed (UsageError): a folder, a device, a binary file, a huge file.
void check_config_file(const std::string& path);

}  // namespace cifar
