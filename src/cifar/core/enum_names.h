// enum_names.h: an enum's names as one table, read and written both ways.
//
// A table of {value, "name"} pairs gives a value's name (name_of) and a
// name's value (parse_name), whose error lists the choices in the table's
// order: "unknown --amp 'fp8': choose auto, bf16, fp16 or off".
#pragma once

#include <fmt/format.h>

#include <array>
#include <cstddef>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

#include "cifar/core/errors.h"
#include "cifar/core/registry.h"

namespace cifar {

template <typename E>
struct EnumName {
  E value;
  const char* name;
};

// The names in the table's order, as words: "bf16, fp16 or off".
template <typename E, size_t N>
std::string choices_of(const std::array<EnumName<E>, N>& table) {
  std::vector<std::string> names;
  for (const auto& entry : table) names.emplace_back(entry.name);
  return in_words(names);
}

// The value named `text`; UsageError "unknown {what} '{text}': choose ..."
// for any other text (`what` names the option or the thing: "--amp").
template <typename E, size_t N>
E parse_name(const std::array<EnumName<E>, N>& table, std::string_view what,
             std::string_view text) {
  for (const auto& entry : table) {
    if (text == entry.name) return entry.value;
  }
  throw UsageError(fmt::format("unknown {} '{}': choose {}", what, text, choices_of(table)));
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
