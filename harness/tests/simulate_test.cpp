// What mpimon simulate reads of SMPI's output: -map lines, the simulated time, and the bytes per rank
// pair of a Paje trace (harness/include/mpimon/harness/simulate.hpp). The traces are written here by
// hand in the shape SimGrid 3.32 writes (its event definitions, containers rank-R with actor pid
// R + 1, keys SRCPID_DSTPID_TAG_N), the expected bytes added up by hand from the messages listed.

#include <gtest/gtest.h>

#include <string>

#include "mpimon/harness/simulate.hpp"
#include "test_util.hpp"

namespace mpimon::harness {
namespace {

const char* kHeader =
    "#This file was generated using SimGrid-3.32.0\n"
    "%EventDef PajeDefineEntityValue 5\n%       Alias string\n%       Type string\n%       Name string\n"
    "%       Color color\n%EndEventDef\n"
    "%EventDef PajeCreateContainer 6\n%       Time date\n%       Alias string\n%       Type string\n"
    "%       Container string\n%       Name string\n%EndEventDef\n"
    "%EventDef PajePushState 12\n%       Time date\n%       Type string\n%       Container string\n"
    "%       Value string\n%EndEventDef\n"
    "%EventDef PajePopState 13\n%       Time date\n%       Type string\n%       Container string\n%EndEventDef\n"
    "%EventDef PajeStartLink 15\n%       Time date\n%       Type string\n%       Container string\n"
    "%       Value string\n%       StartContainer string\n%       Key string\n%       Size int\n%EndEventDef\n"
    "%EventDef PajeEndLink 16\n%       Time date\n%       Type string\n%       Container string\n"
    "%       Value string\n%       EndContainer string\n%       Key string\n%EndEventDef\n"
    "6 0.000000 1 1 0 \"rank-0\"\n6 0.000000 2 1 0 \"rank-1\"\n6 0.000000 3 1 0 \"rank-2\"\n"
    "5 7 2 PMPI_Isend \"0.52 0.52 1\"\n5 8 2 PMPI_Sendrecv \"1 0 0\"\n5 9 2 PMPI_Reduce \"0 1 0\"\n"
    "5 10 2 PMPI_Send \"0 1 0\"\n";

// rank 0 Isend 100 B to rank 1: traced twice (API, then request): 100.
// rank 1 Sendrecv 30 B to rank 2: the API's key names rank 2 (2_2_...), the request's pid 3: 30.
// rank 2 Reduce: two internal messages of 8 B to rank 0 (segments): 16, both counted.
// rank 2 Send 5 B to rank 1: once: 5.
const char* kMessages =
    "12 0.000000 2 1 7\n15 0.000000 3 0 PTP 1 1_2_7_1 100\n15 0.000000 3 0 PTP 1 1_2_7_2 100\n13 0.000000 2 1\n"
    "12 0.000000 2 2 8\n15 0.000000 3 0 PTP 2 2_2_8_3 30\n15 0.000000 3 0 PTP 2 2_3_8_4 30\n13 0.000000 2 2\n"
    "12 0.000000 2 3 9\n15 0.000000 3 0 PTP 3 3_1_-112_5 8\n15 0.000000 3 0 PTP 3 3_1_-112_6 8\n13 0.000000 2 3\n"
    "12 0.000000 2 3 10\n15 0.000000 3 0 PTP 3 3_2_5_7 5\n13 0.000000 2 3\n"
    "16 0.1 3 0 PTP 2 1_2_7_1\n";

TEST(SmpiTrace, BytesPerRankPair) {
  test::TempDir dir;
  const auto path = dir.write("t.trace", std::string(kHeader) + kMessages);
  const auto traffic = read_trace_traffic(path, 3);
  const auto& bytes = traffic.bytes;
  EXPECT_EQ(bytes.at(0, 1), 100u);
  EXPECT_EQ(bytes.at(1, 2), 30u);
  EXPECT_EQ(bytes.at(2, 0), 16u);
  EXPECT_EQ(bytes.at(2, 1), 5u);
  EXPECT_EQ(bytes.stored(), 4u);
  EXPECT_EQ(traffic.messages.at(0, 1), 1u);
  EXPECT_EQ(traffic.messages.at(1, 2), 1u);
  EXPECT_EQ(traffic.messages.at(2, 0), 2u);
  EXPECT_EQ(traffic.messages.at(2, 1), 1u);
  // Folded onto hosts: ranks 0 and 1 on node0, rank 2 on node1.
  const auto hosts = fold_onto_hosts(bytes, {"node0", "node0", "node1"}, {"node0", "node1"});
  EXPECT_EQ(hosts.at(0, 0), 100u);
  EXPECT_EQ(hosts.at(0, 1), 30u);
  EXPECT_EQ(hosts.at(1, 0), 21u);
}

TEST(SmpiTrace, RefusesWhatItCannotRead) {
  test::TempDir dir;
  std::string no_sizes = std::string(kHeader) + kMessages;
  no_sizes.replace(no_sizes.find("%       Size int\n"), 17, "");
  EXPECT_NE(test::error_of([&] { read_trace_traffic(dir.write("a", no_sizes), 3); }).find("no message sizes"),
            std::string::npos);
  // A message counted whose key does not name pids (rank 0 is pid 1): not SimGrid 3.32's shape.
  const std::string bad = std::string(kHeader) + "12 0 2 1 10\n15 0.000000 3 0 PTP 1 5_2_7_1 100\n13 0 2 1\n";
  EXPECT_NE(test::error_of([&] { read_trace_traffic(dir.write("b", bad), 3); }).find("whose key does not name actors"),
            std::string::npos);
  EXPECT_NE(test::error_of([&] { read_trace_traffic(dir.write("c", "hello\n"), 3); }).find("not an SMPI Paje trace"),
            std::string::npos);
  EXPECT_NE(test::error_of([&] {
              read_trace_traffic(dir.write("d", std::string(kHeader) + "6 0 4 1 0 \"rank-3\"\n"), 3);
            }).find("beyond the 3 ranks"),
            std::string::npos);
}

TEST(SmpiOutput, MapLinesAndSimulatedTime) {
  const std::string output =
      "[0.000000] [smpi/INFO] [rank 0] -> node1\n[0.000000] [smpi/INFO] [rank 2] -> node0\n"
      "[0.089321] [smpi_utils/INFO] Simulated time: 0.0893207 seconds. \n";
  EXPECT_EQ(parse_rank_map(output, 3), (std::vector<std::string>{"node1", "", "node0"}));
  ASSERT_TRUE(parse_simulated_time(output).has_value());
  EXPECT_DOUBLE_EQ(*parse_simulated_time(output), 0.0893207);
  EXPECT_FALSE(parse_simulated_time("no time here").has_value());
}

TEST(SmpiSettings, KeyValue) {
  EXPECT_EQ(parse_smpi_setting("smpi/reduce=ompi_binary"),
            (std::pair<std::string, std::string>{"smpi/reduce", "ompi_binary"}));
  for (const char* bad : {"smpi/reduce", "=x", "a b=c", "smpi/reduce=a b"}) {
    EXPECT_NE(test::error_of([&] { parse_smpi_setting(bad); }).find("--smpi takes KEY=VALUE"), std::string::npos)
        << bad;
  }
}

}  // namespace
}  // namespace mpimon::harness
