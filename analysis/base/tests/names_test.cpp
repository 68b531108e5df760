// The enum-name tables (names.hpp): both directions, unknown values and names, and use at compile time.

#include "mpimon/base/names.hpp"

#include <gtest/gtest.h>

#include <string>

namespace mpimon {
namespace {

enum class Fruit { apple, pear, quince };

constexpr std::array<Named<Fruit>, 2> kFruitNames{{{Fruit::apple, "apple"}, {Fruit::pear, "Pear tree"}}};

TEST(Names, ToNameGivesTheNameOfEachValue) {
  EXPECT_EQ(std::string(to_name(kFruitNames, Fruit::apple)), "apple");
  EXPECT_EQ(std::string(to_name(kFruitNames, Fruit::pear)), "Pear tree");
}

TEST(Names, AValueTheTableLacksIsAQuestionMark) {
  EXPECT_EQ(std::string(to_name(kFruitNames, Fruit::quince)), "?");
  EXPECT_EQ(std::string(to_name(kFruitNames, static_cast<Fruit>(42))), "?");
}

TEST(Names, FromNameMatchesWholeNamesExactly) {
  EXPECT_EQ(from_name(kFruitNames, "apple"), Fruit::apple);
  EXPECT_EQ(from_name(kFruitNames, "Pear tree"), Fruit::pear);
  EXPECT_EQ(from_name(kFruitNames, "pear tree"), std::nullopt);  // case-sensitive
  EXPECT_EQ(from_name(kFruitNames, "appl"), std::nullopt);       // no prefix match
  EXPECT_EQ(from_name(kFruitNames, "apples"), std::nullopt);
  EXPECT_EQ(from_name(kFruitNames, ""), std::nullopt);
  EXPECT_EQ(from_name(kFruitNames, "quince"), std::nullopt);
}

TEST(Names, WorkAtCompileTime) {
  static_assert(from_name(kFruitNames, "apple") == Fruit::apple);
  static_assert(!from_name(kFruitNames, "?").has_value());
  static_assert(to_name(kFruitNames, Fruit::pear)[0] == 'P');
}

}  // namespace
}  // namespace mpimon
