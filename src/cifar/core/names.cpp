// names.cpp: see names.h.
#include "cifar/core/names.h"

#include <fmt/format.h>

#include <cctype>

#include <algorithm>
#include <cstdint>

namespace cifar {
std::string lower_case(std::string_view text) {
  std::string out(text);
  for (char& c : out) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return out;
}

std::string a_or_an(std::string_view word) {
  const auto number = [&](std::string_view n) {  // "11", "18", "11-class", not "110"
    return word.starts_with(n) && (word.size() == n.size() || !std::isdigit(word[n.size()]));
  };
  const char first = static_cast<char>(
      std::tolower(static_cast<unsigned char>(word.empty() ? ' ' : word.front())));
  const bool vowel = std::string_view("aeiou8").find(first) != std::string_view::npos;
  return fmt::format("{} {}", vowel || number("11") || number("18") ? "an" : "a", word);
}

std::string shell_word(std::string_view word) {
  const bool plain = !word.empty() && std::ranges::all_of(word, [](char c) {
    return std::isalnum(static_cast<unsigned char>(c)) != 0 ||
           std::string_view("@%+=:,./_-").find(c) != std::string_view::npos;
  });
  if (plain) return std::string(word);
  std::string quoted = "'";
  for (const char c : word) quoted += c == '\'' ? std::string("'\"'\"'") : std::string(1, c);
  return quoted + "'";
}

std::string first_names(const std::vector<std::string>& names, size_t shown,
                        std::string_view separator, size_t total) {
  const size_t named = std::min(shown, names.size());
  std::string text;
  for (size_t i = 0; i < named; ++i) text += (i == 0 ? "" : std::string(separator)) + names[i];
  const size_t all = std::max(total, names.size());
  if (all > named) text += fmt::format(" and {} more", all - named);
  return text;
}

size_t utf8_sequence_length(std::string_view text, size_t i, uint32_t* code_point) {
  const auto byte = [&](size_t k) { return static_cast<unsigned char>(text[k]); };
  const unsigned char lead = byte(i);
  size_t length = 0;
  uint32_t code = 0;
  uint32_t smallest = 0;
  if (lead < 0x80) {
    length = 1, code = lead;
  } else if ((lead & 0xE0) == 0xC0) {
    length = 2, code = lead & 0x1Fu, smallest = 0x80;
  } else if ((lead & 0xF0) == 0xE0) {
    length = 3, code = lead & 0x0Fu, smallest = 0x800;
  } else if ((lead & 0xF8) == 0xF0) {
    length = 4, code = lead & 0x07u, smallest = 0x10000;
  } else {
    return 0;
  }
  if (i + length > text.size()) return 0;
  for (size_t k = 1; k < length; ++k) {
    if ((byte(i + k) & 0xC0) != 0x80) return 0;
    code = (code << 6) | (byte(i + k) & 0x3Fu);
  }
  const bool surrogate = code >= 0xD800 && code <= 0xDFFF;
  if (code < smallest || code > 0x10FFFF || surrogate) return 0;
  if (code_point != nullptr) *code_point = code;
  return length;
}

namespace {

// The code point of the well-formed UTF-8 sequence at text[i] and its length;
// {0xDC00 + byte, 1} for a byte that starts none (Python's surrogateescape).
std::pair<uint32_t, size_t> code_point_at(std::string_view text, size_t i) {
  uint32_t code = 0;
  const size_t length = utf8_sequence_length(text, i, &code);
  if (length == 0) return {0xDC00u + static_cast<unsigned char>(text[i]), 1};
  return {code, length};
}

bool is_escaped(std::string_view text, size_t i, const std::pair<uint32_t, size_t>& cp) {
  return cp.first >= 0xDC80 && cp.first <= 0xDCFF && cp.second == 1 &&
         static_cast<unsigned char>(text[i]) >= 0x80;
}

}  // namespace

std::string shown_name(std::string_view name) {
  bool plain = true;
  for (size_t i = 0; i < name.size() && plain;) {
    const auto cp = code_point_at(name, i);
    plain = cp.first >= 0x20 && cp.first != 0x7F && !is_escaped(name, i, cp);
    i += cp.second;
  }
  if (plain) return std::string(name);
  std::string out = "'";
  for (size_t i = 0; i < name.size();) {
    const auto cp = code_point_at(name, i);
    const char c = name[i];
    if (is_escaped(name, i, cp) || (cp.first < 0x20 && c != '\n' && c != '\t' && c != '\r') ||
        cp.first == 0x7F) {
      out += fmt::format("\\x{:02x}", static_cast<unsigned char>(c));
    } else if (c == '\n') {
      out += "\\n";
    } else if (c == '\t') {
      out += "\\t";
    } else if (c == '\r') {
      out += "\\r";
    } else if (c == '\\' || c == '\'') {
      out += std::string("\\") + c;
    } else {
      out.append(name.substr(i, cp.second));
    }
    i += cp.second;
  }
  return out + "'";
}

bool python_name_less(std::string_view a, std::string_view b) {
  size_t i = 0, j = 0;
  while (i < a.size() && j < b.size()) {
    const auto x = code_point_at(a, i);
    const auto y = code_point_at(b, j);
    if (x.first != y.first) return x.first < y.first;
    i += x.second;
    j += y.second;
  }
  return i == a.size() && j < b.size();
}

}  // namespace cifar
