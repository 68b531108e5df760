// The bytes per rank pair of SMPI's Paje trace (harness/include/mpimon/harness/paje_trace.hpp). The
// traces are written here by hand in the shape SimGrid 3.32 writes (its event definitions,
// containers rank-R with actor pid R + 1, keys SRCPID_DSTPID_TAG_N), the expected bytes added up by
// hand from the messages listed; then each kind of event on its own.

#include <gtest/gtest.h>

#include <algorithm>
#include <string>

#include "mpimon/harness/paje_trace.hpp"
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

TEST(PajeTrace, BytesPerRankPair) {
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

TEST(PajeTrace, RefusesWhatItCannotRead) {
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

std::string error_of_trace(const std::string& trace, std::uint32_t np = 3) {
  test::TempDir dir;
  return test::error_of([&] { read_trace_traffic(dir.write("t.trace", trace), np); });
}

// The header may define an event's fields in any order: each event is read by its definition.
TEST(PajeTrace, FieldsWhereTheHeaderPutsThem) {
  const std::string header =
      "%EventDef PajeDefineEntityValue 1\n%       Name string\n%       Alias string\n%EndEventDef\n"
      "%EventDef PajeCreateContainer 2\n%       Name string\n%       Alias string\n%EndEventDef\n"
      "%EventDef PajePushState 3\n%       Value string\n%       Container string\n%EndEventDef\n"
      "%EventDef PajePopState 4\n%       Container string\n%EndEventDef\n"
      "%EventDef PajeStartLink 5\n%       Size int\n%       Key string\n%       StartContainer string\n%EndEventDef\n";
  // Rank 1 (container "c 1", its name quoted with a blank) sends 7 B to rank 0 in PMPI_Send, and
  // 9 B to rank 0 outside any call.
  const std::string events =
      "2 \"rank-0\" \"c 0\"\n2 \"rank-1\" \"c 1\"\n2 \"node0\" n0\n1 PMPI_Send v1\n"
      "3 v1 \"c 1\"\n5 7 2_1_0_1 \"c 1\"\n4 \"c 1\"\n5 9 2_1_0_2 \"c 1\"\n";
  test::TempDir dir;
  const auto traffic = read_trace_traffic(dir.write("t.trace", header + events), 2);
  EXPECT_EQ(traffic.bytes.at(1, 0), 16u);
  EXPECT_EQ(traffic.messages.at(1, 0), 2u);
  EXPECT_EQ(traffic.bytes.stored(), 1u);
}

// SimGrid 3.32's second tracing of PMPI_Isend (and Ssend, Sendrecv, ...): within the call only the
// last link counts; a call traced once (PMPI_Reduce) counts every link.
TEST(PajeTrace, CallsTracedTwiceCountTheirLastLink) {
  const std::string isend = "12 0 2 1 7\n15 0 3 0 PTP 1 1_2_7_1 40\n15 0 3 0 PTP 1 1_2_7_2 40\n13 0 2 1\n";
  const std::string reduce = "12 0 2 1 9\n15 0 3 0 PTP 1 1_2_7_3 40\n15 0 3 0 PTP 1 1_2_7_4 40\n13 0 2 1\n";
  const std::string containers =
      "6 0 1 1 0 \"rank-0\"\n6 0 2 1 0 \"rank-1\"\n6 0 3 1 0 \"rank-2\"\n"
      "5 7 2 PMPI_Isend \"1 1 1\"\n5 9 2 PMPI_Reduce \"1 1 1\"\n";
  test::TempDir dir;
  const std::string header = std::string(kHeader).substr(0, std::string(kHeader).find("6 0.000000"));
  EXPECT_EQ(read_trace_traffic(dir.write("a", header + containers + isend), 3).bytes.at(0, 1), 40u);
  EXPECT_EQ(read_trace_traffic(dir.write("b", header + containers + reduce), 3).bytes.at(0, 1), 80u);
  // A call still open at the end of the trace is counted too.
  EXPECT_EQ(
      read_trace_traffic(dir.write("c", header + containers + reduce.substr(0, reduce.rfind("13"))), 3).bytes.at(0, 1),
      80u);
}

// Each kind of event refuses what it cannot read, naming the file and line.
TEST(PajeTrace, EachEventNamesItsLine) {
  const std::string header = std::string(kHeader).substr(0, std::string(kHeader).find("6 0.000000"));
  const auto lines = static_cast<std::size_t>(std::count(header.begin(), header.end(), '\n'));
  const std::string at = "t.trace:" + std::to_string(lines + 2) + ": ";
  const std::string rank0 = "6 0 1 1 0 \"rank-0\"\n";
  EXPECT_NE(error_of_trace(header + rank0 + "12 0 2 9 7\n").find(at + "an event of container 9, which is no rank"),
            std::string::npos);
  EXPECT_NE(error_of_trace(header + rank0 + "15 0 3 0 PTP 1 oops 8\n").find(at + "a message key that is not SRC_DST"),
            std::string::npos);
  EXPECT_NE(error_of_trace(header + rank0 + "15 0 3 0 PTP 1 1_2_7_1\n").find(at + "an event without its Size field"),
            std::string::npos);
  EXPECT_NE(error_of_trace(header + rank0 + "6 0 2 1 0\n").find(at + "an event without its Name field"),
            std::string::npos);
  EXPECT_NE(error_of_trace("# only comments\n").find("t.trace: an empty trace"), std::string::npos);
}

}  // namespace
}  // namespace mpimon::harness
