// toml_text.h: flat TOML documents (top-level `key = value` lines), read and
// written with toml++ (Debian's libtomlplusplus-dev, a full TOML 1.0 parser).
//
// Reading gives each key with its value as text, in file order: a string as
// it is (escapes, literal and multi-line strings resolved), a number or a
// boolean as TOML writes it. What a flat document cannot hold is refused with
// its line: [sections], dotted keys and inline tables, arrays, dates. A UTF-8
// byte-order mark at the start is skipped. Writing quotes any UTF-8 text so
// that it reads back byte for byte ('#', both quotes, tabs, newlines,
// non-ASCII); text that is not UTF-8 has no TOML form and is refused.
#pragma once

#include <cstdint>
#include <stdexcept>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace cifar {

// A value a flat document cannot hold, so that the caller can say what its
// key takes instead.
struct TomlBadValue {
  enum Kind { kNone, kArray, kDate, kBareWord } kind = kNone;
  std::string key;   // the top-level key
  std::string word;  // kBareWord: the unquoted word ("model = net": net)
};

// A document that is not flat TOML; what() starts "line N" (and a column for
// syntax errors): the caller adds the file's name, and says whose mistake it
// is (config/config_file.h: a config file's is the user's).
class TomlError : public std::runtime_error {
 public:
  TomlError(int64_t line, const std::string& what, TomlBadValue bad = {})
      : std::runtime_error(what), line_(line), bad_(std::move(bad)) {}
  int64_t line() const { return line_; }
  const TomlBadValue& bad_value() const { return bad_; }

 private:
  int64_t line_;
  TomlBadValue bad_;
};

// A flat value's TOML type: what the reader of a setting checks before the
// text (a string "0.5" is no number).
enum class TomlType { kString, kInteger, kFloat, kBoolean };

struct TomlEntry {
  std::string key;
  std::string value;  // strings as they are, numbers and booleans as written in TOML
  int64_t line = 0;   // 1-based
  TomlType type = TomlType::kString;
};

// "a string", "an integer", "a float", "a boolean": for messages.
std::string toml_type_name(TomlType type);

// The top-level keys of `document` in file order; TomlError otherwise.
std::vector<TomlEntry> read_flat_toml(std::string_view document);

// Whether `text` is well-formed UTF-8 (no overlong forms, surrogates or code
// points above U+10FFFF).
bool is_utf8(std::string_view text);

// `text` for a message: bytes that are not UTF-8 shown as \xFF, the rest as is.
std::string show_bytes(std::string_view text);

// A TOML basic string ("...") holding `text` exactly: quotes, backslashes and
// control characters escaped, other UTF-8 kept. std::invalid_argument when
// `text` is not UTF-8.
std::string toml_string(std::string_view text);

// The shortest TOML float that reads back as `value` ("0.001", "10.0",
// "1e+30", "inf", "nan").
std::string toml_float(double value);

}  // namespace cifar
