// Numbers as mpimon prints them (number_text.hpp), against texts written here by hand.

#include "mpimon/base/number_text.hpp"

#include <gtest/gtest.h>

#include <cmath>
#include <limits>

namespace mpimon {
namespace {

TEST(NumberText, ThroughPrintfOrAbsent) {
  EXPECT_EQ(format_number(0.12345, "%.3f"), "0.123");
  EXPECT_EQ(format_number(12.5, "%+.1f %%"), "+12.5 %");
  EXPECT_EQ(format_number(1.0 / 3, "%.9g", ""), "0.333333333");
  EXPECT_EQ(format_number(std::nullopt, "%.3f"), "-");
  EXPECT_EQ(format_number(std::nullopt, "%.9g", ""), "");
  EXPECT_EQ(format_number(std::numeric_limits<double>::quiet_NaN(), "%.3f"), "-");
  EXPECT_EQ(format_number(std::numeric_limits<double>::infinity(), "%.3f"), "-");
}

TEST(NumberText, SecondsInTheUnitThatSuitsThem) {
  EXPECT_EQ(format_seconds(2.5), "2.5 s");
  EXPECT_EQ(format_seconds(0), "0 s");
  EXPECT_EQ(format_seconds(0.0123), "12.3 ms");
  EXPECT_EQ(format_seconds(4e-5), "40 us");
  EXPECT_EQ(format_seconds(1234), "1.23e+03 s");
}

}  // namespace
}  // namespace mpimon
