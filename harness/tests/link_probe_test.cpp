// The link probe's result line (analysis/link_probe: mpimon/link_probe/result_line.hpp): what
// mpimon-link-probe prints is what probe_link reads, whatever the host names hold.

#include <gtest/gtest.h>

#include "mpimon/link_probe/result_line.hpp"

namespace mpimon {
namespace {

LinkProbeLine measured(std::vector<std::string> hosts) {
  LinkProbeLine l;
  l.hosts = std::move(hosts);
  l.latency_seconds = 1.23456789012e-6;  // 9 significant digits kept: 1.23456789e-06
  l.latency_min_seconds = 1e-6;
  l.bytes_per_second = 1.1e9;
  l.bytes_per_second_max = 1.25e9;
  l.repetitions = 1000;
  l.message_bytes = 1 << 20;
  l.messages = 16;
  l.rounds = 5;
  return l;
}

TEST(LinkProbeLine, HostNamesWithQuotesAndBackslashesRoundTrip) {
  const std::vector<std::string> hosts = {"node\"0\"", "c:\\nodes\\1 \x01tab\t"};
  const std::string output = "some launcher noise\n" + link_probe_line(measured(hosts)) + "\nmore noise\n";
  const auto read = find_link_probe_line(output, "probe");
  ASSERT_TRUE(read);
  EXPECT_EQ(read->hosts, hosts);
  EXPECT_EQ(read->latency_seconds, 1.23456789e-6);
  EXPECT_EQ(read->latency_min_seconds, 1e-6);
  EXPECT_EQ(read->bytes_per_second, 1.1e9);
  EXPECT_EQ(read->bytes_per_second_max, 1.25e9);
  EXPECT_EQ(read->repetitions, 1000u);
  EXPECT_EQ(read->message_bytes, 1u << 20);
  EXPECT_EQ(read->messages, 16u);
  EXPECT_EQ(read->rounds, 5u);
}

TEST(LinkProbeLine, ReadsTheLinesOfEarlierPrograms) {
  // As mpimon-link-probe printed it with printf before the line had a writer of its own.
  const std::string printed =
      "{\"hosts\": [\"node0\", \"node1\"], \"latency_seconds\": 2.5e-06, \"latency_min_seconds\": 2e-06, "
      "\"bytes_per_second\": 1.17e+09, \"bytes_per_second_max\": 1.2e+09, \"repetitions\": 1000, \"message_bytes\": "
      "1048576, \"messages\": 16, \"rounds\": 5}\n";
  const auto read = find_link_probe_line(printed, "probe");
  ASSERT_TRUE(read);
  EXPECT_EQ(read->hosts, (std::vector<std::string>{"node0", "node1"}));
  EXPECT_EQ(read->latency_seconds, 2.5e-6);
  EXPECT_EQ(read->bytes_per_second, 1.17e9);
  // That printf wrote a host name unescaped: a quote in it made the line unreadable.
  EXPECT_FALSE(find_link_probe_line("{\"hosts\": [\"no\"de0\", \"node1\"], \"latency_seconds\": 1}\n", "probe"));
}

TEST(LinkProbeLine, NoLineNoResult) {
  EXPECT_FALSE(find_link_probe_line("", "probe"));
  EXPECT_FALSE(find_link_probe_line("{\"other\": 1}\n", "probe"));
  EXPECT_FALSE(find_link_probe_line("{\"hosts\":[\"a\",\"b\"]}\n", "probe"));  // no measurement
}

}  // namespace
}  // namespace mpimon
