// toml_text.cpp: see toml_text.h. The only file that includes toml++.
#include "cifar/formats/toml_text.h"

#include <fmt/format.h>

#include <toml++/toml.h>
#include <algorithm>
#include <cctype>
#include <optional>
#include <sstream>
#include <stdexcept>

#include "cifar/core/names.h"

namespace cifar {
namespace {

// Line `number` (1-based) of the document, trimmed and cut to `cut` characters.
std::string line_text(std::string_view document, int64_t number, size_t cut = 40) {
  size_t begin = 0;
  for (int64_t n = 1; n < number && begin != std::string_view::npos; ++n) {
    begin = document.find('\n', begin);
    if (begin != std::string_view::npos) ++begin;
  }
  if (begin == std::string_view::npos) return "";
  std::string_view line = document.substr(begin, document.find('\n', begin) - begin);
  if (line.substr(0, 3) == "\xEF\xBB\xBF") line.remove_prefix(3);
  const auto first = line.find_first_not_of(" \t");
  if (first == std::string_view::npos) return "";
  line = line.substr(first, cut);
  return std::string(line.substr(0, line.find_last_not_of(" \t\r") + 1));
}

// What to do about the toml++ errors whose own words give no fix.
std::string parse_error_hint(std::string_view description) {
  if (description.find("cannot redefine existing") != std::string_view::npos) {
    return " (a key set twice, maybe once quoted, or a key used as a table: keep one)";
  }
  if (description.find("not representable") != std::string_view::npos ||
      description.find("could not be interpreted") != std::string_view::npos) {
    return " (a number out of the range TOML holds; the option's own range is in --help)";
  }
  return "";
}

// "model = net", "data = /tmp/x": a word where a value goes, which toml++
// refuses in its own words ("expected 'nan'"). The key and the word, if so.
std::optional<TomlBadValue> bare_word(std::string_view document, int64_t line) {
  const std::string text = line_text(document, line, /*cut=*/1000);
  const auto eq = text.find('=');
  if (eq == std::string::npos) return std::nullopt;
  const auto trim = [](std::string s) {
    s.erase(0, s.find_first_not_of(" \t"));
    s.erase(s.find_last_not_of(" \t\r") + 1);
    return s;
  };
  std::string key = trim(text.substr(0, eq));
  if (key.size() >= 2 && (key.front() == '"' || key.front() == '\'') && key.back() == key.front()) {
    key = key.substr(1, key.size() - 2);  // "model" = net
  }
  if (key.find_first_of(".\"'") != std::string::npos) return std::nullopt;  // dotted: toml++ says
  // A comment starts at a '#' after a space; one inside the word is the word's.
  const auto comment = std::min(text.find(" #", eq), text.find("\t#", eq));
  const std::string value =
      trim(text.substr(eq + 1, comment == std::string::npos ? comment : comment - eq));
  const bool word = !value.empty() &&
                    (std::isalpha(static_cast<unsigned char>(value[0])) ||
                     std::string_view("/.~_").find(value[0]) != std::string_view::npos) &&
                    value.find_first_of(" \t\"'[{") == std::string::npos;
  // TOML's own words: the error on this line is another one.
  for (const char* own : {"true", "false", "inf", "nan"}) {
    if (value == own) return std::nullopt;
  }
  if (key.empty() || !word) return std::nullopt;
  return TomlBadValue{.kind = TomlBadValue::kBareWord, .key = key, .word = value};
}

constexpr const char* kFlat = "keys are all at the top level, e.g. batch-size = 32";

// One top-level value as text, or why it cannot be one.
std::string value_text(const toml::node& node, const std::string& key, int64_t line,
                       std::string_view document) {
  if (const auto* s = node.as_string()) {
    // "\u0000": no name or path holds it (the system would cut the path there).
    if (s->get().find('\0') != std::string::npos) {
      throw TomlError(line, fmt::format("line {}: '{}' holds a NUL character (\\u0000), which no "
                                        "name or path may hold; remove it",
                                        line, key));
    }
    return s->get();
  }
  if (const auto* i = node.as_integer()) return std::to_string(i->get());
  if (const auto* f = node.as_floating_point()) return fmt::format("{}", f->get());
  if (const auto* b = node.as_boolean()) return b->get() ? "true" : "false";
  const std::string text = line_text(document, line);
  if (node.is_table() && text.rfind('[', 0) == 0) {
    throw TomlError(line, fmt::format("line {} starts a section ({}); {}", line, text, kFlat));
  }
  if (node.is_table()) {
    throw TomlError(line, fmt::format("line {}: '{}' is a table (a dotted key or {{...}}); {}",
                                      line, key, kFlat));
  }
  if (node.is_array()) {
    throw TomlError(line,
                    fmt::format("line {}: '{}' is an array; each key takes one value", line, key),
                    {.kind = TomlBadValue::kArray, .key = key, .word = ""});
  }
  throw TomlError(line,
                  fmt::format("line {}: '{}' is a date or time; give a number or a "
                              "quoted string",
                              line, key),
                  {.kind = TomlBadValue::kDate, .key = key, .word = ""});
}

}  // namespace

std::vector<TomlEntry> read_flat_toml(std::string_view document) {
  toml::table table;
  try {
    table = toml::parse(document);
  } catch (const toml::parse_error& e) {
    const auto& at = e.source().begin;
    const auto line = static_cast<int64_t>(at.line);
    if (auto bad = bare_word(document, line)) {
      const std::string what =
          fmt::format("line {}: {} = {}: text needs quotes in TOML: {} = \"{}\"", line, bad->key,
                      bad->word, bad->key, bad->word);
      throw TomlError(line, what, std::move(*bad));
    }
    throw TomlError(line, fmt::format("line {}, column {}: {}{}", line, at.column, e.description(),
                                      parse_error_hint(e.description())));
  }
  std::vector<TomlEntry> entries;
  for (auto&& [key, node] : table) {
    const auto line = static_cast<int64_t>(key.source().begin.line);
    const std::string name(key.str());
    const TomlType type = node.is_integer()          ? TomlType::kInteger
                          : node.is_floating_point() ? TomlType::kFloat
                          : node.is_boolean()        ? TomlType::kBoolean
                                                     : TomlType::kString;
    entries.push_back({name, value_text(node, name, line, document), line, type});
  }
  std::stable_sort(entries.begin(), entries.end(),
                   [](const TomlEntry& a, const TomlEntry& b) { return a.line < b.line; });
  return entries;
}

std::string toml_type_name(TomlType type) {
  switch (type) {
    case TomlType::kInteger:
      return "an integer";
    case TomlType::kFloat:
      return "a float";
    case TomlType::kBoolean:
      return "a boolean";
    case TomlType::kString:
      break;
  }
  return "a string";
}

bool is_utf8(std::string_view text) {
  for (size_t i = 0; i < text.size();) {
    const size_t n = utf8_sequence_length(text, i);
    if (n == 0) return false;
    i += n;
  }
  return true;
}

std::string show_bytes(std::string_view text) {
  std::string out;
  for (size_t i = 0; i < text.size();) {
    const size_t n = utf8_sequence_length(text, i);
    if (n == 0) {
      out += fmt::format("\\x{:02X}", static_cast<unsigned char>(text[i]));
      ++i;
    } else {
      out.append(text.substr(i, n));
      i += n;
    }
  }
  return out;
}

std::string toml_string(std::string_view text) {
  if (!is_utf8(text)) {
    throw std::invalid_argument(
        fmt::format("'{}' is not UTF-8 text, which TOML cannot hold", show_bytes(text)));
  }
  // Basic strings only: toml++'s literal and multi-line forms drop a leading
  // newline, and '\xFF'-style bytes would be read as Latin-1.
  const toml::value<std::string> value{std::string(text)};
  std::ostringstream out;
  out << toml::toml_formatter{value, toml::format_flags::allow_unicode_strings};
  return out.str();
}

std::string toml_float(double value) {
  std::string text = fmt::format("{}", value);
  if (text.find_first_of(".eEn") == std::string::npos) text += ".0";  // 'n': inf, nan
  return text;
}

}  // namespace cifar
