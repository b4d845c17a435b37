// enum_names.h: an enum's names as one table, read and written both ways.
//
// A table of {value, "name"} pairs gives a value's name (name_of) and a
// name's value (find_name: none for an unknown name), whose refusal lists
// the choices in the table's order (names_of): "unknown --amp 'fp8': choose
// auto, bf16, fp16 or off". config/ refuses the names the user types (exit
// status 2); parse_name is for names read from a file or checked before.
#pragma once

#include <array>
#include <cstddef>
#include <optional>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

#include "cifar/core/registry.h"

namespace cifar {

template <typename E>
struct EnumName {
  E value;
  const char* name;
};

// The names in the table's order.
template <typename E, size_t N>
std::vector<std::string> names_of(const std::array<EnumName<E>, N>& table) {
  std::vector<std::string> names;
  for (const auto& entry : table) names.emplace_back(entry.name);
  return names;
}

// The names as words: "bf16, fp16 or off".
template <typename E, size_t N>
std::string choices_of(const std::array<EnumName<E>, N>& table) {
  return in_words(names_of(table));
}

// The value named `text`, or none.
template <typename E, size_t N>
std::optional<E> find_name(const std::array<EnumName<E>, N>& table, std::string_view text) {
  for (const auto& entry : table) {
    if (text == entry.name) return entry.value;
  }
  return std::nullopt;
}

// The value named `text`, for text read from a file or checked before:
// std::runtime_error "unknown {what} '{text}': choose ..." for any other
// text (`what` names the thing: "ResNet stem"), which a reader of a file
// names the file in.
template <typename E, size_t N>
E parse_name(const std::array<EnumName<E>, N>& table, std::string_view what,
             std::string_view text) {
  if (const auto value = find_name(table, text)) return *value;
  throw std::runtime_error(unknown_name(what, text, names_of(table)));
}

// The name of `value`; a value missing from its table is a bug (logic_error).
template <typename E, size_t N>
const char* name_of(const std::array<EnumName<E>, N>& table, E value) {
  for (const auto& entry : table) {
    if (entry.value == value) return entry.name;
  }
  throw std::logic_error("an enum value is missing from its name table");
}

}  // namespace cifar
