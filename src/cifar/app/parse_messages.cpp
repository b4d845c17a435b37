// parse_messages.cpp: what a refused command line or config file says
// (parse_messages.h): the --config checks before parsing, CLI11's messages
// tidied, and the place in the config file a refused value came from.
#include "cifar/app/parse_messages.h"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <cstdint>
#include <filesystem>
#include <memory>
#include <optional>
#include <string_view>
#include <vector>

#include "cifar/app/cli.h"
#include "cifar/config/config_file.h"
#include "cifar/core/errors.h"
#include "cifar/core/file_io.h"

namespace cifar {

namespace {

// The values of --config on the command line, in order.
std::vector<std::string> config_arguments(int argc, char** argv) {
  std::vector<std::string> paths;
  for (int i = 1; i < argc; ++i) {
    const std::string_view arg(argv[i]);
    if (arg == "--config" && i + 1 < argc) paths.emplace_back(argv[++i]);
    if (arg.rfind("--config=", 0) == 0) paths.emplace_back(arg.substr(9));
  }
  return paths;
}

}  // namespace

// The value of --config on the command line, if any.
std::string config_argument(int argc, char** argv) {
  const std::vector<std::string> paths = config_arguments(argc, argv);
  return paths.empty() ? "" : paths.back();
}

// Before CLI11 reads it: one --config, not empty, naming a file (a missing
// one, or a link to one, said as such); then the file's own checks.
void check_config_argument(int argc, char** argv) {
  const std::vector<std::string> paths = config_arguments(argc, argv);
  if (paths.size() > 1) {
    throw UsageError(fmt::format(
        "--config is given {} times ({}): give one file (files are not merged; options on the "
        "command line override its settings)",
        paths.size(), fmt::join(paths, ", ")));
  }
  if (paths.empty()) return;
  const std::string& config = paths.front();
  if (config.empty()) throw UsageError("--config must not be empty: name a TOML file");
  std::error_code ec;
  if (!std::filesystem::exists(config, ec) && !ec) {  // other errors: check_config_file
    throw UsageError(fmt::format("--config {}: no such file{}{}", config,
                                 dangling_link_note(config), shipped_config_hint(config)));
  }
  check_config_file(config);
}

// CLI11 says "--epochs: must be at least 1, got 0"; we say "--epochs must be ...".
std::string tidy(const std::string& message) {
  const auto colon = message.find(": ");
  if (message.rfind("--", 0) != 0 || colon == std::string::npos) return message;
  const std::string name = message.substr(0, colon);
  const std::string rest = message.substr(colon + 2);
  if (rest.rfind(name, 0) == 0) return rest;
  if (rest.rfind("must ", 0) == 0) return name + " " + rest;
  // "--epochs: 1 required INT:in [1, 1000000] missing": the value left out.
  constexpr std::string_view kRequired = "1 required ", kMissing = " missing";
  if (rest.starts_with(kRequired) && rest.ends_with(kMissing)) {
    const std::string kind =
        rest.substr(kRequired.size(), rest.size() - kRequired.size() - kMissing.size());
    return fmt::format("{} needs a value ({}) after it", name, kind);
  }
  return message;
}

namespace {

// Whether argv gives `option` (--name, --name=value, -x, -xVALUE).
bool on_command_line(const CLI::Option& option, int argc, char** argv) {
  for (int i = 1; i < argc; ++i) {
    const std::string_view arg(argv[i]);
    for (const std::string& name : option.get_lnames()) {
      if (arg == "--" + name || arg.rfind("--" + name + "=", 0) == 0) return true;
    }
    for (const std::string& name : option.get_snames()) {
      if (arg.rfind("-" + name, 0) == 0) return true;
    }
  }
  return false;
}

// The app's options a message names ("--name"), in order, each once.
std::vector<const CLI::Option*> named_options(const CLI::App& app, const std::string& message) {
  std::vector<const CLI::Option*> options;
  for (auto at = message.find("--"); at != std::string::npos; at = message.find("--", at + 2)) {
    const auto end = message.find_first_not_of("abcdefghijklmnopqrstuvwxyz0123456789-", at + 2);
    const CLI::Option* option = app.get_option_no_throw(message.substr(at, end - at));
    if (option != nullptr && std::find(options.begin(), options.end(), option) == options.end()) {
      options.push_back(option);
    }
  }
  return options;
}

// The option a CLI11 message is about: the first "--name" in it.
const CLI::Option* named_option(const CLI::App& app, const std::string& message) {
  const auto options = named_options(app, message);
  return options.empty() ? nullptr : options.front();
}

// The config file read, its path and the formatter that knows its lines;
// none when no --config was read.
struct ConfigRead {
  std::string path;
  std::shared_ptr<TomlConfig> formatter;  // null for another formatter
};
std::optional<ConfigRead> config_read(const CLI::App& app) {
  const CLI::Option* config = app.get_config_ptr();
  if (config == nullptr || config->results().empty()) return std::nullopt;
  // The last: as<> throws on a repeated --config.
  return ConfigRead{config->results().back(),
                    std::dynamic_pointer_cast<TomlConfig>(app.get_config_formatter())};
}

}  // namespace

bool set_by_config_file(const CLI::App& app, const char* name) {
  const auto read = config_read(app);
  const CLI::Option* option = app.get_option_no_throw(name);
  return read && read->formatter != nullptr && option != nullptr &&
         read->formatter->line_of(*option).has_value();
}

// Where a value CLI11 refused came from when a config file was read:
// " (--config FILE, line N)" when the file set it, "" when the command line
// did, else " (in or with --config FILE)".
std::string config_place(const CLI::App& app, const std::string& message, int argc, char** argv) {
  const auto read = config_read(app);
  if (!read) return "";
  const CLI::Option* option = named_option(app, message);
  if (option != nullptr && on_command_line(*option, argc, argv)) return "";  // not the file's
  if (read->formatter != nullptr && option != nullptr) {
    if (const auto line = read->formatter->line_of(*option)) {
      return fmt::format(" (--config {}, line {})", read->path, *line);
    }
  }
  return fmt::format(" (in or with --config {})", read->path);
}

// The same for a refusal made after parsing (validate(), the run's checks),
// which may be about several options ("--model net ... not 64x64: drop
// --image-size"): the lines of those the config file set and the command
// line did not. " (--config FILE, line N)" when that is only the option the
// message is about (the first it names), " (--config FILE: model at line 1,
// image-size at line 3)" otherwise, "" for none (or a message that already
// names its place).
std::string file_place(const CLI::App& app, const std::string& message, int argc, char** argv) {
  const auto read = config_read(app);
  if (message.find("(--config ") != std::string::npos || !read || read->formatter == nullptr) {
    return "";
  }
  const std::vector<const CLI::Option*> named = named_options(app, message);
  std::vector<std::string> places;
  int64_t subject_line = 0;
  for (const CLI::Option* option : named) {
    const auto line = read->formatter->line_of(*option);
    if (!line || on_command_line(*option, argc, argv)) continue;
    if (option == named.front()) subject_line = *line;
    places.push_back(fmt::format("{} at line {}", option->get_lnames().front(), *line));
  }
  if (places.empty()) return "";
  if (places.size() == 1 && subject_line != 0) {
    return fmt::format(" (--config {}, line {})", read->path, subject_line);
  }
  return fmt::format(" (--config {}: {})", read->path, fmt::join(places, ", "));
}

}  // namespace cifar
