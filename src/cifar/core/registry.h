// registry.h: the one lookup every registry uses, and the one way to list
// its choices.
//
// A registry (models, optimisers, recipes, data-set kinds: timm's
// registries) is a vector of entries, each with a `name` and a `help`.
// find_entry gives the entry of a name, or null; unknown_name says what a
// caller that refuses the name says, listing the choices: "unknown
// --optimizer 'adam': choose sgd, adamw or lion" (config/ refuses the names
// the user types, exit status 2; a name read from a file is its reader's
// error). in_words joins words the same way everywhere: "a", "a or b",
// "a, b or c".
#pragma once

#include <fmt/format.h>

#include <algorithm>
#include <string>
#include <string_view>
#include <vector>

namespace cifar {

// "a", "a or b", "a, b or c".
inline std::string in_words(const std::vector<std::string>& words) {
  std::string out;
  for (size_t i = 0; i < words.size(); ++i) {
    out += (i == 0 ? "" : i + 1 == words.size() ? " or " : ", ") + words[i];
  }
  return out;
}

// The entries' names, in the registry's order.
template <class Entry>
std::vector<std::string> entry_names(const std::vector<Entry>& entries) {
  std::vector<std::string> names;
  for (const Entry& e : entries) names.push_back(e.name);
  return names;
}

// "sgd (help) or adamw (help)", for --help.
template <class Entry>
std::string entries_in_words(const std::vector<Entry>& entries) {
  std::vector<std::string> words;
  for (const Entry& e : entries) words.push_back(fmt::format("{} ({})", e.name, e.help));
  return in_words(words);
}

// "unknown {what} '{name}': choose {choices in words}" (`what` names the
// option or the thing: "--optimizer", "model").
inline std::string unknown_name(std::string_view what, std::string_view name,
                                const std::vector<std::string>& choices) {
  return fmt::format("unknown {} '{}': choose {}", what, name, in_words(choices));
}

// The entry called `name`, or null (unknown_name says so, with entry_names).
template <class Entry>
const Entry* find_entry(const std::vector<Entry>& entries, std::string_view name) {
  const auto it = std::ranges::find(entries, name, &Entry::name);
  return it == entries.end() ? nullptr : &*it;
}

}  // namespace cifar
