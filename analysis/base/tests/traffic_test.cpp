// The monitoring's vocabulary (traffic.hpp): histogram buckets as Open MPI fills them, class names.

#include "mpimon/base/traffic.hpp"

#include <gtest/gtest.h>

#include <string>
#include <utility>

namespace mpimon {
namespace {

// Buckets observed in Open MPI 4.1.4 dumps for these message sizes (docs/prof-format.md).
TEST(HistogramBucket, MatchesObservedOpenMpiBuckets) {
  const std::pair<std::uint64_t, std::size_t> observed[] = {{0, 0}, {1, 1}, {2, 2},     {3, 2},    {4, 3},
                                                            {7, 3}, {8, 4}, {1000, 10}, {1024, 11}};
  for (auto [bytes, bucket] : observed) EXPECT_EQ(histogram_bucket(bytes), bucket) << bytes;
  EXPECT_EQ(histogram_bucket(~0ull), 64u);
}

TEST(TrafficClass, NamesAndLettersParseBack) {
  const std::pair<TrafficClass, std::string> expected[] = {{TrafficClass::external, "external"},
                                                           {TrafficClass::internal, "internal"},
                                                           {TrafficClass::osc_sent, "osc_sent"},
                                                           {TrafficClass::osc_recv, "osc_recv"},
                                                           {TrafficClass::coll, "coll"}};
  const std::string letters = "EISRC";
  for (std::size_t i = 0; i < kTrafficClassCount; ++i) {
    EXPECT_EQ(std::string(class_name(expected[i].first)), expected[i].second);
    EXPECT_EQ(class_letter(expected[i].first), letters[i]);
    EXPECT_EQ(parse_class(expected[i].second), expected[i].first);
    EXPECT_EQ(parse_class(std::string(1, letters[i])), expected[i].first);
  }
  EXPECT_FALSE(parse_class("X").has_value());
  EXPECT_FALSE(parse_class("ext").has_value());
}

}  // namespace
}  // namespace mpimon
