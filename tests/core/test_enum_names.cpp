// test_enum_names.cpp: an enum's name table read and written both ways.
#include <catch2/catch.hpp>

#include "cifar/core/enum_names.h"

using namespace cifar;

namespace {
enum class Colour { kRed, kGreen, kBlue, kGrey };
constexpr std::array<EnumName<Colour>, 3> kColours{
    {{Colour::kRed, "red"}, {Colour::kGreen, "green"}, {Colour::kBlue, "blue"}}};
}  // namespace

TEST_CASE("an enum name table gives names and values both ways", "[core]") {
  for (const auto& entry : kColours) {
    CHECK(std::string(name_of(kColours, entry.value)) == entry.name);
    CHECK(parse_name(kColours, "--colour", entry.name) == entry.value);
  }
  CHECK(choices_of(kColours) == "red, green or blue");
}

TEST_CASE("an unknown name is a usage error listing the choices", "[core]") {
  CHECK_THROWS_AS(parse_name(kColours, "--colour", "Red"), UsageError);
  CHECK_THROWS_WITH(parse_name(kColours, "--colour", "pink"),
                    "unknown --colour 'pink': choose red, green or blue");
  CHECK_THROWS_AS(name_of(kColours, Colour::kGrey), std::logic_error);
}
