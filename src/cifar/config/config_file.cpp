// config_file.cpp: see config_file.h.
#include "cifar/config/config_file.h"

#include <fmt/format.h>

#include <algorithm>
#include <charconv>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <memory>
#include <sstream>

#include "cifar/config/option_suggestion.h"
#include "cifar/core/errors.h"
#include "cifar/formats/toml_text.h"

namespace cifar {
namespace {

// The option a config key sets, as CLI11 looks it up (App::_parse_single_config).
const CLI::Option* option_for(const CLI::App& app, const std::string& key) {
  const CLI::Option* option = app.get_option_no_throw("--" + key);
  if (option == nullptr && key.size() == 1) option = app.get_option_no_throw("-" + key);
  return option;
}

// A value as TOML: booleans and finite numbers bare, anything else quoted.
std::string toml_value(const std::string& text) {
  if (text == "true" || text == "false") return text;
  double number = 0;
  const auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), number);
  if (ec == std::errc() && end == text.data() + text.size() && std::isfinite(number)) return text;
  return toml_string(text);
}

// The value of `entry` as its line wrote it (near enough: a float in its
// shortest form).
std::string as_written(const TomlEntry& entry) {
  switch (entry.type) {
    case TomlType::kString:
      return toml_string(entry.value);
    case TomlType::kFloat:
      return toml_float(std::stod(entry.value));
    default:
      return entry.value;
  }
}

// The option's value type: "INT", "UINT", "FLOAT", "TEXT" or "FLAG".
std::string value_type(const CLI::Option& option) {
  if (option.get_expected_max() == 0) return "FLAG";
  const std::string full = option.get_type_name();  // "INT:[1, 1000000]": the type, its checks
  return full.substr(0, full.find(':'));
}

// What `key` takes, with an example: "a number, unquoted (lr = 0.5)".
std::string wanted_value(const CLI::Option& option, const std::string& key,
                         const std::string& text = "text") {
  const std::string type = value_type(option);
  if (type == "FLAG") return fmt::format("true or false ({} = true)", key);
  if (type == "INT" || type == "UINT")
    return fmt::format("a whole number, unquoted ({} = 10)", key);
  if (type == "FLOAT") return fmt::format("a number, unquoted ({} = 0.5)", key);
  return fmt::format("a quoted string ({} = \"{}\")", key, text);
}

// Types are exact (issue 47): a flag takes a boolean, a whole-number option
// an integer (an unsigned one also the quoted digits config.toml writes past
// 2^63), a real-number option an integer or a float, any other option a
// string. ConfigTypeError naming the option otherwise, which run_cli
// follows with "(--config FILE, line N)".
void check_type(const CLI::Option& option, const TomlEntry& entry) {
  const std::string type = value_type(option);
  const auto is = [&](TomlType t) { return entry.type == t; };
  if (type == "FLAG") {
    if (is(TomlType::kBoolean)) return;
  } else if (type == "INT" || type == "UINT") {
    const bool digits =
        !entry.value.empty() && std::all_of(entry.value.begin(), entry.value.end(),
                                            [](char c) { return c >= '0' && c <= '9'; });
    if (is(TomlType::kInteger) || (type == "UINT" && is(TomlType::kString) && digits)) return;
  } else if (type == "FLOAT") {
    if (is(TomlType::kInteger) || is(TomlType::kFloat)) return;
  } else if (is(TomlType::kString)) {
    return;
  }
  const std::string wanted = wanted_value(option, entry.key, entry.value);
  throw ConfigTypeError(option.get_name(),
                        fmt::format("must be {}, not {}: {} = {}", wanted,
                                    toml_type_name(entry.type), entry.key, as_written(entry)),
                        entry.line);
}

}  // namespace

std::vector<TomlEntry> read_settings_toml(std::string_view document) {
  try {
    return read_flat_toml(document);
  } catch (const TomlError& e) {
    throw ConfigFileError(e.line(), e.what());
  }
}

namespace {

// The option `key` sets, if it is one a config file may hold; ConfigFileError
// otherwise, naming the key it likely meant.
const CLI::Option& configurable_option(const CLI::App& app, const std::string& key, int64_t line) {
  const CLI::Option* option = option_for(app, key);
  if (option == nullptr) {
    const std::string meant = suggest_option(app, "--" + key, /*config_keys=*/true);
    throw ConfigFileError(line, meant.empty()
                                    ? fmt::format("line {}: unknown key '{}'; keys are the long "
                                                  "option names without dashes, e.g. "
                                                  "batch-size = 32",
                                                  line, key)
                                    : fmt::format("line {}: unknown key '{}': did you mean {} = "
                                                  "...?",
                                                  line, key, meant.substr(2)));
  }
  if (!option->get_configurable() || option == app.get_config_ptr()) {  // help, version, config
    throw ConfigFileError(line, fmt::format("line {}: '{}' is no setting: a config file holds a "
                                            "run's options; give --{} on the command line",
                                            line, key, key));
  }
  return *option;
}

// The entries of a config file; a value that is not flat is refused saying
// what its key takes.
std::vector<TomlEntry> read_config_entries(const CLI::App& app, std::string_view document) {
  try {
    return read_flat_toml(document);
  } catch (const TomlError& e) {
    const TomlBadValue& bad = e.bad_value();
    if (bad.kind == TomlBadValue::kNone) throw ConfigFileError(e.line(), e.what());
    const CLI::Option& option = configurable_option(app, bad.key, e.line());
    const std::string wanted = wanted_value(option, bad.key, bad.word.empty() ? "text" : bad.word);
    switch (bad.kind) {
      case TomlBadValue::kArray:
        throw ConfigFileError(e.line(), fmt::format("{}: here {}", e.what(), wanted));
      case TomlBadValue::kDate:
        throw ConfigFileError(e.line(), fmt::format("line {}: '{}' is a date or time: here {}",
                                                    e.line(), bad.key, wanted));
      default:  // a bare word: quotes, if the option takes text
        if (value_type(option) == "TEXT") throw ConfigFileError(e.line(), e.what());
        throw ConfigFileError(e.line(), fmt::format("line {}: {} = {}: here {}", e.line(), bad.key,
                                                    bad.word, wanted));
    }
  }
}

}  // namespace

std::vector<CLI::ConfigItem> TomlConfig::from_config(std::istream& input) const {
  // Read through rdbuf: GCC 12's -Wnull-dereference flags libstdc++'s own
  // istreambuf_iterator code when a string is built from a pair of them.
  std::ostringstream whole;
  whole << input.rdbuf();
  const std::string document = std::move(whole).str();
  std::vector<CLI::ConfigItem> config_items;
  lines_.clear();
  std::map<const CLI::Option*, const TomlEntry*> set_by;  // a flag and its --no- form are one
  const std::vector<TomlEntry> entries = read_config_entries(*app_, document);
  for (const TomlEntry& entry : entries) {
    const CLI::Option& option = configurable_option(*app_, entry.key, entry.line);
    if (const auto [at, fresh] = set_by.emplace(&option, &entry); !fresh) {
      throw ConfigFileError(entry.line,
                            fmt::format("line {}: '{}' sets what '{}' on line {} sets: keep one",
                                        entry.line, entry.key, at->second->key, at->second->line));
    }
  }
  for (TomlEntry entry : entries) {
    lines_[entry.key] = entry.line;
    const CLI::Option* option = option_for(*app_, entry.key);
    check_type(*option, entry);
    CLI::ConfigItem item;
    item.name = std::move(entry.key);
    item.inputs = {std::move(entry.value)};
    config_items.push_back(std::move(item));
  }
  return config_items;
}

std::optional<int64_t> TomlConfig::line_of(const CLI::Option& option) const {
  for (const std::string& name : option.get_lnames()) {
    if (const auto found = lines_.find(name); found != lines_.end()) return found->second;
  }
  return std::nullopt;
}

std::string TomlConfig::to_config(const CLI::App* app, bool default_also, bool write_description,
                                  std::string prefix) const {
  std::string out;
  for (const CLI::Option* option : app->get_options()) {
    if (!option->get_configurable() || option->get_lnames().empty() ||
        option == app->get_config_ptr() || option == app->get_help_ptr() ||
        option == app->get_version_ptr()) {
      continue;
    }
    std::string value;
    if (option->count() > 0) {
      value = option->results().back();
    } else if (default_also && !option->get_default_str().empty()) {
      value = option->get_default_str();
    } else {
      continue;
    }
    if (write_description && !option->get_description().empty()) {
      out += fmt::format("# {}\n", first_line(option->get_description()));
    }
    out += fmt::format("{}{} = {}\n", prefix, option->get_lnames().front(), toml_value(value));
  }
  return out;
}

void add_config_option(CLI::App& app, const std::string& help) {
  app.set_config("--config", "", help)->option_text("FILE");
  app.config_formatter(std::make_shared<TomlConfig>(app));
  app.allow_config_extras(CLI::config_extras_mode::error);
}

void check_config_file(const std::string& path) {
  constexpr std::uintmax_t kMaxBytes = 1 << 20;
  std::error_code ec;
  const auto status = std::filesystem::status(path, ec);
  if (!std::filesystem::exists(status)) {
    throw UsageError(fmt::format("--config {}: no such file", path));
  }
  if (!std::filesystem::is_regular_file(status)) {
    throw UsageError(fmt::format("--config {}: not a regular file; give a TOML file", path));
  }
  const auto size = std::filesystem::file_size(path, ec);
  if (ec || size > kMaxBytes) {
    throw UsageError(
        fmt::format("--config {}: {} bytes, larger than a config file can be ({} bytes)", path,
                    size, kMaxBytes));
  }
  std::ifstream in(path, std::ios::binary);
  if (!in) throw UsageError(fmt::format("--config {}: cannot be read (permission denied?)", path));
  // TOML allows no control characters but tab (and CR LF line ends), in
  // strings or out: a file holding others is binary, not a config.
  int line_number = 0;
  for (std::string line; std::getline(in, line);) {
    ++line_number;
    if (std::any_of(line.begin(), line.end(), [](char ch) {
          return static_cast<unsigned char>(ch) < 0x20 && ch != '\t' && ch != '\r';
        })) {
      throw UsageError(fmt::format("--config {}: line {} holds binary data; give a TOML text file",
                                   path, line_number));
    }
  }
}

}  // namespace cifar
