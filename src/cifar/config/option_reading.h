// option_reading.h: an option's text as typed, read once: numbers in base
// 10 (read_number), and the CLI11 checks the option tables attach (a
// number's range, a typed value's parse, a text that is not empty).
// OptionDeclarer (option_visitors.h) uses them.
#pragma once

#include <fmt/format.h>

#include <CLI/CLI.hpp>
#include <charconv>
#include <string>
#include <type_traits>

#include "cifar/config/option_spec.h"
#include "cifar/core/errors.h"

namespace cifar::options {

// --- One reading of numbers --------------------------------------------------------

// A number as typed, read once for the command line and config files alike
// (config_file.cpp hands a TOML number over as its decimal text): an
// integer in base 10 (digits, with '-' where negatives are allowed), a real
// in decimal or scientific notation, the whole text and nothing around it.
// CLI11 never converts it: it reads integers with base 0 (010 as 8, 0x10 as
// 16) and an unsigned ' -1' as 2^64-1. `error` is "" when `value` is
// allowed, else why not, in the words out_of_range uses.
template <class T>
struct TypedNumber {
  T value{};
  std::string error;
};

template <class T>
TypedNumber<T> read_number(const std::string& text, const Range<T>& r) {
  TypedNumber<T> out;
  const char* first = text.data();
  const char* last = first + text.size();
  if (std::is_unsigned_v<T> && !text.empty() && text[0] == '-') {
    out.error = fmt::format("must be at least 0, got {}", text);
    return out;
  }
  const auto [end, ec] = std::from_chars(first, last, out.value);
  if (ec == std::errc::result_out_of_range) {  // past the type: below or above the range
    const bool above = std::is_integral_v<T> && text[0] != '-';
    out.error = above ? fmt::format("must be at most {}, got {}", r.hi_open ? r.hi - 1 : r.hi, text)
                      : fmt::format("must be {}, got {}", describe(r), text);
  } else if (ec != std::errc() || end != last) {
    out.error = std::is_integral_v<T>
                    ? fmt::format(
                          "must be a whole number in base 10 (digits only, e.g. 10), "
                          "got '{}'",
                          text)
                    : fmt::format(
                          "must be a number in decimal or scientific notation (e.g. "
                          "0.01 or 1e-3), got '{}'",
                          text);
  } else {
    out.error = out_of_range(r, out.value, text);
  }
  return out;
}

// CLI11's check of a number's text: read_number's error.
template <class T>
CLI::Validator range_validator(Range<T> r) {
  return CLI::Validator([r](std::string& text) { return read_number(text, r).error; }, describe(r));
}

// The CLI11 check of a text option given: not empty (`--data ''` would
// name no folder, file or value).
inline CLI::Validator non_empty_validator() {
  return CLI::Validator(
      [](std::string& text) -> std::string {
        return text.empty() ? "must not be empty: give a value, or leave the option out" : "";
      },
      "", "");
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

}  // namespace cifar::options
