// names.h: names as the file system has them: any bytes but '/' and NUL.
//
// Three things every tool does with them, in one place:
//   shown_name         a name (a path) in a message or a log line, written so
//                      that it reads back exactly and keeps its line whole: as
//                      it is when it is printable UTF-8, else between single
//                      quotes with Python's escapes (\n, \t, \\, \', \xNN for
//                      other control characters and bytes that are not UTF-8)
//   python_name_less   the order Python's sorted() gives os.walk's and
//                      os.scandir's names (str, decoded with surrogateescape:
//                      a byte that is not UTF-8 is U+DC80 + its value less
//                      0x80), which torchvision's ImageFolder and
//                      cifar-predict's folders follow; byte order differs for
//                      names that are not UTF-8
//   first_names        "a, b, c and 4 more": a few of a long list, in a message
#pragma once

#include <cstddef>
#include <cstdint>
#include <filesystem>
#include <string>
#include <string_view>
#include <vector>

namespace cifar {

std::string shown_name(std::string_view name);
inline std::string shown_name(const std::string& name) {
  return shown_name(std::string_view(name));
}
inline std::string shown_name(const char* name) {
  return shown_name(std::string_view(name));
}
inline std::string shown_name(const std::filesystem::path& path) {
  return shown_name(std::string_view(path.native()));
}
// Each of `names` as shown_name writes it (class names in a report's lines).
inline std::vector<std::string> shown_names(const std::vector<std::string>& names) {
  std::vector<std::string> out;
  out.reserve(names.size());
  for (const std::string& name : names) out.push_back(shown_name(name));
  return out;
}

bool python_name_less(std::string_view a, std::string_view b);

// `word` as one word of a command a user pastes into a POSIX shell (Python's
// shlex.quote): as it is when it holds only letters, digits and @%+=:,./_-,
// else in single quotes ("my run/last.pt" -> 'my run/last.pt'; a quote in it
// written '"'"').
std::string shell_word(std::string_view word);

// `text` with its ASCII letters in lower case: a file's extension (".PNG"),
// a folder's name ("Train"), a capability ("AVX2") compared as written.
std::string lower_case(std::string_view text);

// `word` with its indefinite article, as it is said: "a net", "an airbench94",
// "an 8-class", "an 18-class", "a 10-class".
std::string a_or_an(std::string_view word);

// The first `shown` of `names` joined by `separator`, then " and N more" for
// the rest of `total` (0: names.size()) when some are left out.
std::string first_names(const std::vector<std::string>& names, size_t shown,
                        std::string_view separator = ", ", size_t total = 0);

// The length (1-4) of the well-formed UTF-8 sequence at text[i], or 0 when
// the bytes there form none (overlong, surrogate, past U+10FFFF, cut short);
// `code_point`, when given, receives its code point.
size_t utf8_sequence_length(std::string_view text, size_t i, uint32_t* code_point = nullptr);

}  // namespace cifar
