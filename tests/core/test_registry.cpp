// test_registry.cpp: the one lookup and listing every registry uses.
#include <catch2/catch.hpp>

#include "cifar/core/registry.h"

using namespace cifar;

namespace {
struct Entry {
  std::string name;
  std::string help;
  int value = 0;
};
const std::vector<Entry> kEntries{
    {"sgd", "momentum", 1}, {"adamw", "moments", 2}, {"lion", "sign", 3}};
}  // namespace

TEST_CASE("a registry's entries are found by name and listed in its order", "[core]") {
  for (const Entry& e : kEntries) CHECK(find_entry(kEntries, e.name)->value == e.value);
  CHECK(in_words({}) == "");
  CHECK(in_words({"a"}) == "a");
  CHECK(in_words({"a", "b"}) == "a or b");
  CHECK(in_words(entry_names(kEntries)) == "sgd, adamw or lion");
  CHECK(entries_in_words(kEntries) == "sgd (momentum), adamw (moments) or lion (sign)");
}

TEST_CASE("an unknown entry is none, and its refusal names the option and the choices", "[core]") {
  CHECK(find_entry(kEntries, "SGD") == nullptr);  // names are exact
  CHECK(find_entry(kEntries, "adam") == nullptr);
  CHECK(unknown_name("--optimizer", "adam", entry_names(kEntries)) ==
        "unknown --optimizer 'adam': choose sgd, adamw or lion");
}
