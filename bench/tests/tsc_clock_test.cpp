// The TSC clock's arithmetic on synthetic readings whose frequency is known by construction (not
// a timing test: no clock is read here).

#include <gtest/gtest.h>

#include <cstdint>
#include <vector>

#include "tsc_clock.h"

namespace {

TEST(TscClock, TicksToNsAtAKnownFrequency) {
  EXPECT_DOUBLE_EQ(mpimon_ticks_to_ns(2000, 2.0), 1000.0);  // 2 GHz: 2 ticks per ns
  EXPECT_DOUBLE_EQ(mpimon_ticks_to_ns(21, 2.1), 10.0);
  EXPECT_DOUBLE_EQ(mpimon_ticks_to_ns(0, 3.0), 0.0);
  // Large counters (days of uptime at 3 GHz) keep sub-ns precision for differences.
  EXPECT_NEAR(mpimon_ticks_to_ns(3'000'000'000'000ULL + 3, 3.0) - mpimon_ticks_to_ns(3'000'000'000'000ULL, 3.0), 1.0,
              1e-3);
}

// A reading of a counter at `hz` ticks per ns that started at `origin`, bracketed by `before`
// and `after` ns around the clock read at `ns`.
mpimon_clock_pair reading(std::int64_t ns, double hz, std::uint64_t origin, double before, double after) {
  return {origin + static_cast<std::uint64_t>((static_cast<double>(ns) - before) * hz),
          origin + static_cast<std::uint64_t>((static_cast<double>(ns) + after) * hz), ns};
}

TEST(TscClock, FrequencyFromTheTightestReadings) {
  const double hz = 2.096030;
  const std::uint64_t origin = 123'456'789'000ULL;
  // Symmetric brackets of 20 ns, except interrupted readings (asymmetric, 5 us): they must be
  // ignored, or the frequency would be off by about 5 us / 50 ms = 1e-4.
  std::vector<mpimon_clock_pair> first, last;
  for (int i = 0; i < 16; ++i) {
    const std::int64_t t0 = 1'000'000'000 + i * 100, t1 = 1'050'000'000 + i * 100;
    const bool interrupted = i % 3 == 0;
    first.push_back(reading(t0, hz, origin, 10, interrupted ? 5000 : 10));
    last.push_back(reading(t1, hz, origin, interrupted ? 5000 : 10, 10));
  }
  const double f = mpimon_tsc_frequency(first.data(), first.size(), last.data(), last.size());
  EXPECT_NEAR(f, hz, 1e-7);
}

TEST(TscClock, ConversionAfterCalibrationRecoversNanoseconds) {
  // A counter at 2.5 ticks/ns; calibrate from two bursts, then convert a 10 ns interval.
  const double hz = 2.5;
  std::vector<mpimon_clock_pair> first{reading(1000, hz, 1000, 8, 8)}, last{reading(20'001'000, hz, 1000, 8, 8)};
  const double f = mpimon_tsc_frequency(first.data(), 1, last.data(), 1);
  EXPECT_DOUBLE_EQ(f, hz);
  EXPECT_NEAR(mpimon_ticks_to_ns(25, f), 10.0, 1e-9);
}

TEST(TscClock, NoFrequencyFromUnusableReadings) {
  std::vector<mpimon_clock_pair> a{{100, 120, 1000}}, same_time{{200, 220, 1000}}, backwards{{50, 70, 2000}},
      inverted{{300, 280, 3000}};
  EXPECT_EQ(mpimon_tsc_frequency(a.data(), 0, a.data(), 1), 0.0);          // no readings
  EXPECT_EQ(mpimon_tsc_frequency(a.data(), 1, same_time.data(), 1), 0.0);  // no elapsed time
  EXPECT_EQ(mpimon_tsc_frequency(a.data(), 1, backwards.data(), 1), 0.0);  // counter went back
  EXPECT_EQ(mpimon_tsc_frequency(a.data(), 1, inverted.data(), 1), 0.0);   // after < before
}

}  // namespace
