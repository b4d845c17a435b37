// option_visitors.h: the machinery behind the option tables (option_tables.h).
//
// An option is written down once, as a call on a visitor: number (with its
// Range, option_spec.h; its text read once, in base 10, by read_number,
// option_reading.h),
// flag, text, parsed (a typed value, or an optional one, with its parse and
// format functions) or positional. Four visitors turn a table into what a
// tool needs: OptionDeclarer declares CLI11 options (the text checked and
// read as typed, so an overflow is an error and not a clamped value, and 010
// is ten), RangeChecker checks a config filled in code, ValueLister lists
// each value as text, which the ranks compare and toml_lines writes as the
// saved config.toml (TOML basic strings, so any UTF-8 text reads back).
// Each option also says what it is to the run (Opt::role, setting_role.h);
// RoleLister hands those to --resume's and the ranks' comparisons.
// Included through option_tables.h by config.cpp and settings_check.cpp.
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

#include "cifar/config/option_reading.h"
#include "cifar/config/option_spec.h"
#include "cifar/core/errors.h"
#include "cifar/formats/toml_text.h"

namespace cifar::options {

// --- The visitors ----------------------------------------------------------------

// Declares options on a CLI11 app. Defaults go into the help text as words.
struct OptionDeclarer {
  CLI::App& app;

  // The text is kept as text and read by read_number, never by CLI11.
  template <class T>
  void number(const Opt& o, T& field, Range<T> r) {
    app.add_option_function<std::string>(
           o.names, [&field, r](const std::string& text) { field = read_number(text, r).value; },
           fmt::format("{} (default: {})", o.help, field))
        ->check(range_validator(r))
        ->type_name(CLI::detail::type_name<T>())
        ->required(o.required)
        ->group(o.group);
  }
  // Unset until given: the help says what stands in for it (`unset`).
  template <class T>
  void number(const Opt& o, std::optional<T>& field, Range<T> r, const char* unset) {
    app.add_option_function<std::string>(
           o.names, [&field, r](const std::string& text) { field = read_number(text, r).value; },
           fmt::format("{} (default: {})", o.help, unset))
        ->check(range_validator(r))
        ->type_name(CLI::detail::type_name<T>())
        ->required(o.required)
        ->group(o.group);
  }
  // --x sets the flag (also "x = true" or "x = false" in a config file);
  // --no-x (or "no-x = true") clears it. One option of two names: the last
  // given wins, and the command line overrides the config file.
  void flag(const Opt& o, bool& field) {
    const std::string name = long_name(o.names);
    app.add_flag("--" + name + ",!--no-" + name, field,
                 fmt::format("{} (default: {}; --no-{} turns it off)", o.help, field ? "on" : "off",
                             name))
        ->multi_option_policy(CLI::MultiOptionPolicy::TakeLast)
        ->group(o.group);
  }
  void text(const Opt& o, std::string& field) {
    app.add_option(o.names, field, o.help)
        ->check(non_empty_validator())
        ->required(o.required)
        ->group(o.group);
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
  template <class T>
  void number(const Opt& o, const std::optional<T>& field, Range<T> r, const char*) {
    if (field) number(o, *field, r);
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

// Lists every saved option's value as text, by its long name, with its role
// and group: what two settings are compared by, and what config.toml holds
// (toml_lines). Numbers as TOML writes them (floats at shortest round trip),
// text as it is; an unset or empty option is left out. Text that is not
// UTF-8 is refused as config.toml would refuse it (a UsageError naming the
// option; validate() refuses it first).
struct ValueLister {
  struct Value {
    std::string key, text;
    SettingRole role = SettingRole::kShapes;
    const char* group = "";
    bool quoted = false;  // a TOML string: text, and an unsigned count past int64's range
  };
  std::vector<Value> values;

  void add(const Opt& o, std::string text, bool quoted = false) {
    if (o.saved) values.push_back({long_name(o.names), std::move(text), o.role, o.group, quoted});
  }
  template <class T>
  void number(const Opt& o, const T& field, Range<T>) {
    if constexpr (std::is_floating_point_v<T>) {
      add(o, toml_float(field));
    } else {
      // TOML integers are 64-bit signed: a larger unsigned count is a string.
      const bool past =
          std::is_unsigned_v<T> && field > static_cast<T>(std::numeric_limits<int64_t>::max());
      add(o, fmt::format("{}", field), past);
    }
  }
  template <class T>
  void number(const Opt& o, const std::optional<T>& field, Range<T> r, const char*) {
    if (field) number(o, *field, r);  // unset: no line, and unset when read back
  }
  void flag(const Opt& o, const bool& field) { add(o, field ? "true" : "false"); }
  void text(const Opt& o, const std::string& field) {
    if (field.empty()) return;
    RangeChecker{.toml = true}.text(o, field);  // not UTF-8: UsageError naming the option
    add(o, field, /*quoted=*/true);
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

// `key = value` lines under a comment naming each group. Strings are TOML
// basic strings (toml_text.h): any UTF-8 path reads back byte for byte.
inline std::string toml_lines(const std::vector<ValueLister::Value>& values) {
  std::string out;
  const char* group = nullptr;
  for (const ValueLister::Value& v : values) {
    if (group == nullptr || std::strcmp(group, v.group) != 0) {
      group = v.group;
      out += fmt::format("\n# {}\n", group);
    }
    out += fmt::format("{} = {}\n", v.key, v.quoted ? toml_string(v.text) : v.text);
  }
  return out;
}

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
  template <class T>
  void number(const Opt& o, const std::optional<T>&, Range<T>, const char*) {
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
