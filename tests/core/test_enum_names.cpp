// test_enum_names.cpp: an enum's name table read and written both ways.
#include <catch2/catch.hpp>

#include "cifar/core/enum_names.h"
#include "cifar/core/errors.h"

using namespace cifar;

namespace {
enum class Colour { kRed, kGreen, kBlue, kGrey };
constexpr std::array<EnumName<Colour>, 3> kColours{
    {{Colour::kRed, "red"}, {Colour::kGreen, "green"}, {Colour::kBlue, "blue"}}};
}  // namespace

TEST_CASE("an enum name table gives names and values both ways", "[core]") {
  for (const auto& entry : kColours) {
    CHECK(std::string(name_of(kColours, entry.value)) == entry.name);
    CHECK(find_name(kColours, entry.name) == entry.value);
    CHECK(parse_name(kColours, "--colour", entry.name) == entry.value);
  }
  CHECK(names_of(kColours) == std::vector<std::string>{"red", "green", "blue"});
  CHECK(choices_of(kColours) == "red, green or blue");
}

TEST_CASE("an unknown name is none, or an error of the file's text listing the choices", "[core]") {
  CHECK_FALSE(find_name(kColours, "Red").has_value());  // names are exact
  // parse_name reads a file's text: not the user's (a UsageError is config/'s).
  CHECK_THROWS_AS(parse_name(kColours, "--colour", "Red"), std::runtime_error);
  CHECK_THROWS_MATCHES(
      parse_name(kColours, "--colour", "pink"), std::runtime_error,
      Catch::Matchers::Predicate<std::runtime_error>([](const std::runtime_error& e) {
        return dynamic_cast<const UsageError*>(&e) == nullptr &&
               std::string(e.what()) == "unknown --colour 'pink': choose red, green or blue";
      }));
  CHECK_THROWS_AS(name_of(kColours, Colour::kGrey), std::logic_error);
}
