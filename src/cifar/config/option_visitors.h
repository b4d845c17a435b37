// option_visitors.h: the machinery behind the option tables (option_tables.h).
//
// An option is written down once, as a call on a visitor: number (with its
// Range, option_spec.h), flag, text, parsed (a typed value, or an optional
// one, with its parse and format functions) or positional. Three visitors turn a table
// into what a tool needs: OptionDeclarer declares CLI11 options (with range
// validators that check the text as typed, so an overflow is an error and not
// a clamped value), RangeChecker checks a config filled in code, TomlWriter
// writes the saved config.toml (with toml++, so any UTF-8 text reads back).
// Each option also says what it is to the run (Opt::role, setting_role.h);
// RoleLister hands those to --resume's and the ranks' comparisons.
// Included by config.cpp only.
#pragma once

#include <fmt/format.h>

#include <CLI/CLI.hpp>
#include <charconv>
#include <cstring>
#include <limits>
#include <optional>
#include <string>
#include <type_traits>
#include <utility>
#include <vector>

#include "cifar/core/errors.h"
#include "cifar/formats/toml_text.h"
#include "cifar/config/option_spec.h"

namespace cifar::options {

// --- CLI11 checks of the text a user typed ----------------------------------------

// Checks the text of a number before CLI11 converts it, so that an overflow
// ("99999999999999999999", "-1" for an unsigned) is a range error naming the
// typed value, not a silently clamped one. Text that is not a number at all is
// left to CLI11's "Could not convert" error.
template <class T>
CLI::Validator range_validator(Range<T> r) {
  return CLI::Validator(
      [r](std::string& text) -> std::string {
        T value{};
        const char* first = text.data();
        const char* last = first + text.size();
        if (std::is_unsigned_v<T> && !text.empty() && text[0] == '-') {
          return fmt::format("must be at least 0, got {}", text);
        }
        const auto [end, ec] = std::from_chars(first, last, value);
        if (ec == std::errc::result_out_of_range) {
          return fmt::format("must be {}, got {}", describe(r), text);
        }
        if (ec != std::errc() || end != last) return "";  // CLI11 reports what it cannot convert
        return out_of_range(r, value, text);
      },
      describe(r));
}

// The CLI11 check of a Parsed option: its parse function's UsageError.
template <class T>
CLI::Validator parse_validator(Parsed<T> p) {
  return CLI::Validator(
      [p](std::string& text) -> std::string {
        try {
          p.parse(text);
          return "";
        } catch (const UsageError& e) {
          return e.what();
        }
      },
      "", "");
}

// --- The visitors ----------------------------------------------------------------

// Declares options on a CLI11 app. Defaults go into the help text as words.
struct OptionDeclarer {
  CLI::App& app;

  template <class T>
  void number(const Opt& o, T& field, Range<T> r) {
    app.add_option(o.names, field, fmt::format("{} (default: {})", o.help, field))
        ->check(range_validator(r))
        ->required(o.required)
        ->group(o.group);
  }
  // --x sets the flag (also "x = true" or "x = false" in a config file);
  // --no-x, not listed in --help, clears it.
  void flag(const Opt& o, bool& field) {
    const std::string name = long_name(o.names);
    app.add_flag("--" + name, field,
                 fmt::format("{} (default: {}; --no-{} turns it off)", o.help, field ? "on" : "off",
                             name))
        ->group(o.group);
    app.add_flag_callback("--no-" + name, [&field] { field = false; })->group("");
  }
  void text(const Opt& o, std::string& field) {
    app.add_option(o.names, field, o.help)->required(o.required)->group(o.group);
  }
  template <class T>
  void parsed(const Opt& o, T& field, Parsed<T> p) {
    const std::string shown = p.format(field);
    app.add_option_function<std::string>(
           o.names, [&field, p](const std::string& text) { field = p.parse(text); },
           shown.empty() ? std::string(o.help) : fmt::format("{} (default: {})", o.help, shown))
        ->check(parse_validator(p))
        ->required(o.required)
        ->group(o.group);
  }
  // Unset until given; the help says what stands in for it.
  template <class T>
  void parsed(const Opt& o, std::optional<T>& field, Parsed<T> p) {
    app.add_option_function<std::string>(
           o.names, [&field, p](const std::string& text) { field = p.parse(text); }, o.help)
        ->check(parse_validator(p))
        ->required(o.required)
        ->group(o.group);
  }
  void positional(const Opt& o, std::vector<std::string>& field) {
    app.add_option(o.names, field, o.help)->required(o.required);  // TakeLast keeps them all
  }
};

// Checks a config filled in code against the same ranges. With `toml`, text
// must also be something config.toml can hold (UTF-8), so that a run is
// refused at start rather than when it writes its settings.
struct RangeChecker {
  bool toml = false;

  template <class T>
  void number(const Opt& o, const T& field, Range<T> r) {
    const std::string why = out_of_range(r, field, fmt::format("{}", field));
    if (!why.empty()) throw UsageError(fmt::format("--{} {}", long_name(o.names), why));
  }
  void flag(const Opt&, const bool&) {}
  void text(const Opt& o, const std::string& field) {
    if (o.required && field.empty()) {
      throw UsageError(fmt::format("--{} is required", long_name(o.names)));
    }
    if (toml && o.saved && !is_utf8(field)) {
      throw UsageError(fmt::format(
          "--{} '{}' is not UTF-8 text, which the run's config.toml cannot hold (TOML is "
          "UTF-8); use a name in UTF-8",
          long_name(o.names), show_bytes(field)));
    }
  }
  template <class T>
  void parsed(const Opt& o, const T& field, Parsed<T> p) {
    if constexpr (std::is_same_v<T, std::string>) {
      if (!field.empty()) p.parse(field);
      text(o, field);
    }
  }
  template <class T>
  void parsed(const Opt& o, const std::optional<T>& field, Parsed<T> p) {
    if (field) parsed(o, *field, p);
  }
  void positional(const Opt& o, const std::vector<std::string>& field) {
    if (o.required && field.empty()) {
      throw UsageError(fmt::format("give at least one {}", long_name(o.names)));
    }
  }
};

// Writes `key = value` lines under a comment naming each group. Strings are
// TOML basic strings (toml_text.h): any UTF-8 path reads back byte for byte.
struct TomlWriter {
  std::string out;
  const char* group = nullptr;

  void line(const Opt& o, const std::string& value) {
    if (!o.saved) return;
    if (group == nullptr || std::strcmp(group, o.group) != 0) {
      group = o.group;
      out += fmt::format("\n# {}\n", group);
    }
    out += fmt::format("{} = {}\n", long_name(o.names), value);
  }
  template <class T>
  void number(const Opt& o, const T& field, Range<T>) {
    if constexpr (std::is_floating_point_v<T>) {
      line(o, toml_float(field));
    } else if (std::is_unsigned_v<T> &&
               field > static_cast<T>(std::numeric_limits<int64_t>::max())) {
      line(o, toml_string(fmt::format("{}", field)));  // TOML integers are 64-bit signed
    } else {
      line(o, fmt::format("{}", field));
    }
  }
  void flag(const Opt& o, const bool& field) { line(o, field ? "true" : "false"); }
  void text(const Opt& o, const std::string& field) {
    if (field.empty() || !o.saved) return;
    RangeChecker{.toml = true}.text(o, field);  // not UTF-8: UsageError naming the option
    line(o, toml_string(field));
  }
  template <class T>
  void parsed(const Opt& o, const T& field, Parsed<T> p) {
    text(o, p.format(field));
  }
  template <class T>
  void parsed(const Opt& o, const std::optional<T>& field, Parsed<T> p) {
    if (field) text(o, p.format(*field));
  }
};

// Lists the role of every saved option, by its long name (the TOML key).
struct RoleLister {
  std::vector<std::pair<std::string, SettingRole>> roles;

  void add(const Opt& o) {
    if (o.saved) roles.emplace_back(long_name(o.names), o.role);
  }
  template <class T>
  void number(const Opt& o, const T&, Range<T>) {
    add(o);
  }
  void flag(const Opt& o, const bool&) { add(o); }
  void text(const Opt& o, const std::string&) { add(o); }
  template <class T, class P>
  void parsed(const Opt& o, const T&, P) {
    add(o);
  }
  void positional(const Opt& o, const std::vector<std::string>&) { add(o); }
};

}  // namespace cifar::options
