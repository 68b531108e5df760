// Rates and durations as users write them (units.hpp), against values worked out by hand.

#include "mpimon/base/units.hpp"

#include <gtest/gtest.h>

#include "mpimon/base/error.hpp"

namespace mpimon {
namespace {

TEST(Units, RatesUseTcsDecimalPrefixes) {
  EXPECT_EQ(parse_rate("100mbit", "--rate"), 100000000u);
  EXPECT_EQ(parse_rate("1gbit", "--rate"), 1000000000u);
  EXPECT_EQ(parse_rate("64kbit", "--rate"), 64000u);
  EXPECT_EQ(parse_rate("9600bit", "--rate"), 9600u);
}

TEST(Units, RatesReadBackAsWritten) {
  for (const char* rate : {"100mbit", "1gbit", "1500kbit", "7bit", "25gbit"}) {
    EXPECT_EQ(format_rate(parse_rate(rate, "--rate")), rate);
  }
}

TEST(Units, DurationsUseSiPrefixes) {
  EXPECT_DOUBLE_EQ(parse_duration("50us", "--latency"), 50e-6);
  EXPECT_DOUBLE_EQ(parse_duration("1.5ms", "--latency"), 1.5e-3);
  EXPECT_DOUBLE_EQ(parse_duration("200ns", "--latency"), 200e-9);
  EXPECT_DOUBLE_EQ(parse_duration("2s", "--latency"), 2.0);
  EXPECT_DOUBLE_EQ(parse_duration("0us", "--latency"), 0.0);
}

TEST(Units, BadValuesNameTheOption) {
  for (const char* bad : {"", "100", "100mb", "0mbit", "-1gbit", "1.5gbit", "fast"}) {
    try {
      parse_rate(bad, "--rate");
      ADD_FAILURE() << "accepted rate '" << bad << "'";
    } catch (const Error& e) {
      EXPECT_EQ(e.kind(), Error::Kind::usage);
      EXPECT_NE(std::string(e.what()).find("--rate"), std::string::npos) << e.what();
    }
  }
  for (const char* bad : {"", "50", "50 us", "-1us", "1h", ".5ms"}) {
    EXPECT_THROW(parse_duration(bad, "--link"), Error) << "accepted duration '" << bad << "'";
  }
}

}  // namespace
}  // namespace mpimon
