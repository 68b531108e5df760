#include <gtest/gtest.h>

#include <algorithm>
#include <numeric>

#include "mpimon/matrices/prof.hpp"
#include "test_util.hpp"

namespace mpimon {
namespace {

using test::data_path;
using test::error_of;
using test::histogram_text;
using test::read_text;

const std::string kHeaders = "# POINT TO POINT\n# OSC\n# COLLECTIVES\n";

// A minimal valid file of `rank` with the given point-to-point lines.
std::string p2p_file(const std::string& p2p_lines) {
  return "# POINT TO POINT\n" + p2p_lines + "# OSC\n# COLLECTIVES\n";
}

std::string parse_error(const std::string& text, std::uint32_t rank = 0) {
  return error_of([&] { parse_prof(text, "f.0.prof", rank); });
}

const PairRecord* find_pair(const RankProfile& p, TrafficClass c, std::uint32_t peer) {
  for (const auto& r : p.pairs) {
    if (r.traffic_class == c && r.peer == peer) return &r;
  }
  return nullptr;
}

const PeerHistogram* find_histogram(const RankProfile& p, std::uint32_t peer) {
  for (const auto& h : p.histograms) {
    if (h.peer == peer) return &h;
  }
  return nullptr;
}

std::uint64_t total(const Histogram& h) { return std::accumulate(h.begin(), h.end(), std::uint64_t{0}); }

// Values below were read off the file by eye (see tests/data/real/README.md for how it was made).
TEST(ProfReader, ReadsRealMode2Dump) {
  RankProfile p = read_prof_file(data_path("real/mode2_sample.0.prof"), 0);
  EXPECT_EQ(p.rank, 0u);
  ASSERT_TRUE(p.world_size.has_value());
  EXPECT_EQ(*p.world_size, 3u);
  EXPECT_TRUE(p.has_internal_lines);

  const PairRecord* e01 = find_pair(p, TrafficClass::external, 1);
  ASSERT_NE(e01, nullptr);
  EXPECT_EQ(e01->bytes, 1000u);
  EXPECT_EQ(e01->count, 2u);
  EXPECT_EQ(e01->line, 2u);
  const PairRecord* i02 = find_pair(p, TrafficClass::internal, 2);
  ASSERT_NE(i02, nullptr);
  EXPECT_EQ(i02->bytes, 4364u);
  EXPECT_EQ(i02->count, 23u);
  EXPECT_EQ(find_pair(p, TrafficClass::external, 2), nullptr);
  const PairRecord* s01 = find_pair(p, TrafficClass::osc_sent, 1);
  ASSERT_NE(s01, nullptr);
  EXPECT_EQ(s01->bytes, 10u);
  EXPECT_EQ(s01->count, 2u);
  const PairRecord* r01 = find_pair(p, TrafficClass::osc_recv, 1);
  ASSERT_NE(r01, nullptr);
  EXPECT_EQ(r01->bytes, 20u);
  EXPECT_EQ(find_pair(p, TrafficClass::coll, 2)->bytes, 4444u);
  EXPECT_EQ(p.pairs.size(), 7u);

  // The E line's histogram covers E and I messages to that peer; the I line to peer 2 carries
  // the histogram because there is no E line for peer 2.
  ASSERT_EQ(p.histograms.size(), 2u);
  const PeerHistogram* h1 = find_histogram(p, 1);
  ASSERT_NE(h1, nullptr);
  EXPECT_EQ(h1->buckets[0], 5u);
  EXPECT_EQ(h1->buckets[3], 18u);
  EXPECT_EQ(h1->buckets[13], 1u);
  EXPECT_EQ(total(h1->buckets), 2u + 31u);
  EXPECT_EQ(total(find_histogram(p, 2)->buckets), 23u);

  ASSERT_EQ(p.communicators.size(), 6u);
  const CommunicatorRecord& sub = p.communicators[2];
  EXPECT_EQ(sub.name, "my sub comm");
  EXPECT_EQ(sub.members, (std::vector<std::uint32_t>{0, 2}));
  EXPECT_EQ(sub.all_to_all.bytes, 40u);
  EXPECT_EQ(sub.all_to_all.calls, 1u);
  EXPECT_EQ(p.communicators[0].name, "MPI COMMUNICATOR 5 SPLIT_TYPE FROM 4");
  EXPECT_EQ(p.communicators[0].one_to_all.bytes, 8288u);
  EXPECT_EQ(p.communicators[0].one_to_all.calls, 2u);
}

TEST(ProfReader, ReadsRealMode1DumpWithoutInternalLines) {
  RankProfile p = read_prof_file(data_path("real/mode1_sample.1.prof"), 1);
  EXPECT_FALSE(p.has_internal_lines);
  const PairRecord* e10 = find_pair(p, TrafficClass::external, 0);
  ASSERT_NE(e10, nullptr);
  EXPECT_EQ(e10->bytes, 160u);
  EXPECT_EQ(e10->count, 28u);
  // With enable = 1 all traffic is external, so each histogram sums to the E count.
  for (const auto& h : p.histograms) EXPECT_EQ(total(h.buckets), find_pair(p, TrafficClass::external, h.peer)->count);
}

TEST(ProfReader, CrlfLineEndingsReadLikeLf) {
  std::string lf = read_text(data_path("real/mode2_sample.1.prof"));
  std::string crlf;
  for (char c : lf) crlf += c == '\n' ? std::string("\r\n") : std::string(1, c);
  RankProfile a = parse_prof(lf, "lf", 1);
  RankProfile b = parse_prof(crlf, "crlf", 1);
  ASSERT_EQ(a.pairs.size(), b.pairs.size());
  for (std::size_t i = 0; i < a.pairs.size(); ++i) {
    EXPECT_EQ(a.pairs[i].bytes, b.pairs[i].bytes);
    EXPECT_EQ(a.pairs[i].count, b.pairs[i].count);
  }
  ASSERT_EQ(a.communicators.size(), b.communicators.size());
  EXPECT_EQ(a.communicators.back().name, b.communicators.back().name);
  EXPECT_EQ(a.histograms.size(), b.histograms.size());
}

TEST(ProfReader, AcceptsPairLinesWithAndWithoutHistogram) {
  auto p = parse_prof(
      p2p_file("E\t0\t1\t8 bytes\t1 msgs sent\t" + histogram_text({{4, 1}}) + "\n" + "E\t0\t2\t0 bytes\t3 msgs sent\n"),
      "f", 0);
  EXPECT_EQ(p.pairs.size(), 2u);
  ASSERT_EQ(p.histograms.size(), 1u);
  EXPECT_EQ(p.histograms[0].buckets[4], 1u);
  EXPECT_FALSE(p.world_size.has_value());
}

// The histogram scanner skips "0,0,0,0," eight bytes at a time: values next to and inside such
// runs, at either end of the line and with leading zeros, must still land in their buckets.
TEST(ProfReader, HistogramValuesAroundRunsOfZeros) {
  for (int k : {0, 1, 3, 4, 5, 8, 61, 62, 63, 64, 65}) {
    auto p = parse_prof(p2p_file("E\t0\t1\t8 bytes\t1 msgs sent\t" + histogram_text({{k, 12345}}) + "\n"), "f", 0);
    ASSERT_EQ(p.histograms.size(), 1u);
    for (int b = 0; b < 66; ++b) EXPECT_EQ(p.histograms[0].buckets[b], b == k ? 12345u : 0u) << k << " " << b;
  }
  std::string padded = "007";
  for (int b = 1; b < 66; ++b) padded += ",00";
  auto p = parse_prof(p2p_file("E\t0\t1\t8 bytes\t1 msgs sent\t" + padded + "\n"), "f", 0);
  EXPECT_EQ(p.histograms[0].buckets[0], 7u);
  EXPECT_EQ(total(p.histograms[0].buckets), 7u);
  EXPECT_EQ(parse_error(p2p_file("E\t0\t1\t1 bytes\t1 msgs sent\t" + histogram_text() + ",\n")),
            "f.0.prof:2: histogram has 67 buckets, expected 66");
  EXPECT_EQ(parse_error(p2p_file("E\t0\t1\t1 bytes\t1 msgs sent\t0,0,0,0,0,0,0,0,\n")),
            "f.0.prof:2: histogram bucket '' is not a non-negative integer");
}

// A ProfReader reuses its buffers and the last large `procs:` list from file to file: what it
// returns must not depend on what it read before.
TEST(ProfReader, ReaderReuseKeepsFilesApart) {
  std::string big, other;
  for (int r = 0; r < 600; ++r) big += (r ? "," : "") + std::to_string(r);
  for (int r = 0; r < 600; ++r) other += (r ? "," : "") + std::to_string(599 - r);
  auto world = [](std::uint32_t rank, const std::string& procs) {
    std::string r = std::to_string(rank);
    return "D\tMPI_COMM_WORLD\tprocs: " + procs + "\nO2A\t" + r + "\t0 bytes\t0 msgs sent\nA2O\t" + r +
           "\t0 bytes\t0 msgs sent\nA2A\t" + r + "\t0 bytes\t0 msgs sent\n";
  };
  ProfReader reader;
  RankProfile p;
  reader.parse("# POINT TO POINT\nI\t0\t1\t8 bytes\t1 msgs sent\t" + histogram_text({{4, 1}}) +
                   "\n# OSC\n# COLLECTIVES\n" + world(0, big),
               "a", 0, p);
  EXPECT_TRUE(p.has_internal_lines);
  ASSERT_EQ(p.communicators.size(), 1u);
  EXPECT_EQ(p.communicators[0].members[599], 599u);
  reader.parse(kHeaders + world(1, big), "b", 1, p);  // same list: from the cache
  EXPECT_EQ(p.rank, 1u);
  EXPECT_TRUE(p.pairs.empty());
  EXPECT_TRUE(p.histograms.empty());
  EXPECT_FALSE(p.has_internal_lines);
  ASSERT_EQ(p.communicators.size(), 1u);
  EXPECT_EQ(p.communicators[0].members.size(), 600u);
  EXPECT_EQ(p.communicators[0].members[599], 599u);
  EXPECT_EQ(p.world_size, 600u);
  reader.parse(kHeaders + world(2, other), "c", 2, p);  // another list of the same length
  EXPECT_EQ(p.communicators[0].members[0], 599u);
  EXPECT_EQ(p.communicators[0].members[599], 0u);
  EXPECT_EQ(error_of([&] { reader.parse(kHeaders + world(3, big + ",x"), "d.3.prof", 3, p); }),
            "d.3.prof:4: communicator member 'x' is not a non-negative integer");
  reader.parse(kHeaders + world(4, big), "e", 4, p);
  EXPECT_EQ(p.communicators[0].members[599], 599u);
}

TEST(ProfReader, AcceptsLargestCount) {
  auto p = parse_prof(p2p_file("E\t0\t1\t18446744073709551615 bytes\t1 msgs sent\n"), "f", 0);
  EXPECT_EQ(p.pairs[0].bytes, 18446744073709551615ull);
}

TEST(ProfReader, CommunicatorNameMayContainTabsAndMembersMayBeEmpty) {
  auto p = parse_prof(kHeaders +
                          "D\tweird\tname\tprocs: \nO2A\t0\t0 bytes\t0 msgs sent\n"
                          "A2O\t0\t0 bytes\t0 msgs sent\nA2A\t0\t0 bytes\t0 msgs sent\n",
                      "f", 0);
  ASSERT_EQ(p.communicators.size(), 1u);
  EXPECT_EQ(p.communicators[0].name, "weird\tname");
  EXPECT_TRUE(p.communicators[0].members.empty());
}

TEST(DumpNames, PhasesInNumericOrder) {
  std::vector<std::string> names = {"phase_10", "phase_2", "phase_1", "run", "phase_9", "phase_02a", "phase_2a"};
  std::sort(names.begin(), names.end(), DumpNameLess{});
  const std::vector<std::string> expected = {"phase_1", "phase_2",  "phase_02a", "phase_2a",
                                             "phase_9", "phase_10", "run"};
  EXPECT_EQ(names, expected);
  EXPECT_FALSE(DumpNameLess{}("a", "a"));
  EXPECT_TRUE(DumpNameLess{}("a", "ab"));
  EXPECT_TRUE(DumpNameLess{}("x99999999999999999999998", "x99999999999999999999999"));
}

TEST(ProfName, SplitsDumpAndRank) {
  ProfName n = parse_prof_name("prof/phase_1.3.prof");
  EXPECT_EQ(n.dump, "phase_1");
  EXPECT_EQ(n.rank, 3u);
  n = parse_prof_name("a.b.12.prof");
  EXPECT_EQ(n.dump, "a.b");
  EXPECT_EQ(n.rank, 12u);
  EXPECT_EQ(parse_prof_name("dir/.0.prof").dump, "unnamed");
}

TEST(ProfName, RejectsOtherNames) {
  for (const char* bad :
       {"x.prof", "x.a.prof", "x.-1.prof", "x.3.txt", "x.3.prof.bak", "x..prof", "x.99999999999.prof"}) {
    EXPECT_EQ(error_of([&] { parse_prof_name(bad); }),
              std::string(bad) + ": file name must have the form NAME.RANK.prof (as Open MPI writes it)")
        << bad;
  }
}

// Every class of bad input gets its own exact message naming file and line.
TEST(ProfReaderErrors, EmptyFile) { EXPECT_EQ(parse_error(""), "f.0.prof: empty file"); }

TEST(ProfReaderErrors, BinaryFile) {
  EXPECT_EQ(parse_error(std::string("\x7f"
                                    "ELF\x02\x01\x01\0\0\0",
                                    10)),
            "f.0.prof: binary data (NUL byte at offset 7), not a .prof file");
}

TEST(ProfReaderErrors, TruncatedLastLine) {
  EXPECT_EQ(parse_error("# POINT TO POINT\nE\t0\t1\t100 by"),
            "f.0.prof:2: last line has no newline: the file looks truncated");
}

TEST(ProfReaderErrors, TruncatedBeforeLastSection) {
  EXPECT_EQ(parse_error("# POINT TO POINT\nE\t0\t1\t1 bytes\t1 msgs sent\n# OSC\n"),
            "f.0.prof: file ends before the '# COLLECTIVES' section: truncated or not a .prof file");
}

TEST(ProfReaderErrors, GarbledFields) {
  EXPECT_EQ(parse_error(p2p_file("E\t0\t1\t10 byt\t1 msgs sent\n")),
            "f.0.prof:2: byte count field '10 byt' does not end with ' bytes'");
  EXPECT_EQ(parse_error(p2p_file("E\t0\t1\t10 bytes\n")), "f.0.prof:2: line ends before its message count");
  EXPECT_EQ(parse_error(p2p_file("E 0 1 10 bytes 1 msgs sent\n")),
            "f.0.prof:2: unrecognised line 'E 0 1 10 bytes 1 msgs sent'");
  EXPECT_EQ(parse_error(p2p_file("Q\t0\t1\n")), "f.0.prof:2: unrecognised line 'Q\\x090\\x091'");
  EXPECT_EQ(parse_error("# POINT TO POINTS\n"), "f.0.prof:1: unknown section header '# POINT TO POINTS'");
  EXPECT_EQ(parse_error("# OSC\n"), "f.0.prof:1: section header '# OSC' out of order");
}

TEST(ProfReaderErrors, NonNumericCounts) {
  EXPECT_EQ(parse_error(p2p_file("E\t0\t1\tx bytes\t1 msgs sent\n")),
            "f.0.prof:2: byte count 'x' is not a non-negative integer");
  EXPECT_EQ(parse_error(p2p_file("E\t0\t1\t-5 bytes\t1 msgs sent\n")),
            "f.0.prof:2: byte count '-5' is not a non-negative integer");
  EXPECT_EQ(parse_error(p2p_file("E\t0\t1\t5 bytes\t1.5 msgs sent\n")),
            "f.0.prof:2: message count '1.5' is not a non-negative integer");
  EXPECT_EQ(parse_error(p2p_file("E\t0\tone\t5 bytes\t1 msgs sent\n")),
            "f.0.prof:2: peer rank 'one' is not a non-negative integer");
}

TEST(ProfReaderErrors, OverflowingCounts) {
  EXPECT_EQ(parse_error(p2p_file("E\t0\t1\t18446744073709551616 bytes\t1 msgs sent\n")),
            "f.0.prof:2: byte count 18446744073709551616 exceeds 2^64-1");
  EXPECT_EQ(parse_error(p2p_file("E\t0\t1\t1 bytes\t99999999999999999999999 msgs sent\n")),
            "f.0.prof:2: message count 99999999999999999999999 exceeds 2^64-1");
  std::string big_bucket = "18446744073709551616" + histogram_text().substr(1);
  EXPECT_EQ(parse_error(p2p_file("E\t0\t1\t1 bytes\t1 msgs sent\t" + big_bucket + "\n")),
            "f.0.prof:2: histogram bucket 18446744073709551616 exceeds 2^64-1");
}

TEST(ProfReaderErrors, LineOfAnotherRank) {
  EXPECT_EQ(parse_error(p2p_file("E\t2\t1\t1 bytes\t1 msgs sent\n"), 0),
            "f.0.prof:2: line recorded by rank 2 in the file of rank 0");
  EXPECT_EQ(parse_error(kHeaders + "D\tMPI_COMM_WORLD\tprocs: 0,1\nO2A\t1\t0 bytes\t0 msgs sent\n", 0),
            "f.0.prof:5: line recorded by rank 1 in the file of rank 0");
}

TEST(ProfReaderErrors, PeerOutsideWorld) {
  std::string text =
      "# POINT TO POINT\nE\t0\t7\t1 bytes\t1 msgs sent\n# OSC\n# COLLECTIVES\n"
      "D\tMPI_COMM_WORLD\tprocs: 0,1,2,3\nO2A\t0\t0 bytes\t0 msgs sent\n"
      "A2O\t0\t0 bytes\t0 msgs sent\nA2A\t0\t0 bytes\t0 msgs sent\n";
  EXPECT_EQ(parse_error(text), "f.0.prof:2: peer 7 is outside MPI_COMM_WORLD (4 processes)");
}

TEST(ProfReaderErrors, HistogramOfWrongLength) {
  std::string short_hist = histogram_text().substr(2);  // 65 values
  EXPECT_EQ(parse_error(p2p_file("E\t0\t1\t1 bytes\t1 msgs sent\t" + short_hist + "\n")),
            "f.0.prof:2: histogram has 65 buckets, expected 66");
  EXPECT_EQ(parse_error(p2p_file("E\t0\t1\t1 bytes\t1 msgs sent\t" + histogram_text() + ",0\n")),
            "f.0.prof:2: histogram has 67 buckets, expected 66");
  EXPECT_EQ(parse_error(p2p_file("E\t0\t1\t1 bytes\t1 msgs sent\t\n")),
            "f.0.prof:2: histogram bucket '' is not a non-negative integer");
}

TEST(ProfReaderErrors, ExtraFields) {
  EXPECT_EQ(
      parse_error("# POINT TO POINT\n# OSC\nS\t0\t1\t1 bytes\t1 msgs sent\t" + histogram_text() + "\n# COLLECTIVES\n"),
      "f.0.prof:3: S line has an unexpected extra field");
  EXPECT_EQ(parse_error(p2p_file("E\t0\t1\t1 bytes\t1 msgs sent\t" + histogram_text() + "\tx\n")),
            "f.0.prof:2: too many fields");
}

TEST(ProfReaderErrors, DuplicateLines) {
  EXPECT_EQ(parse_error(p2p_file("E\t0\t1\t1 bytes\t1 msgs sent\nE\t0\t2\t1 bytes\t1 msgs sent\n"
                                 "E\t0\t1\t5 bytes\t1 msgs sent\n")),
            "f.0.prof:4: second E line for peer 1 (first at line 2)");
  EXPECT_EQ(parse_error(p2p_file("E\t0\t1\t1 bytes\t1 msgs sent\t" + histogram_text() + "\n" +
                                 "I\t0\t1\t1 bytes\t1 msgs sent\t" + histogram_text() + "\n")),
            "f.0.prof:3: second histogram for peer 1 (first at line 2)");
}

TEST(ProfReaderErrors, LinesOutsideTheirSection) {
  EXPECT_EQ(parse_error("E\t0\t1\t1 bytes\t1 msgs sent\n"), "f.0.prof:1: E line outside its section");
  EXPECT_EQ(parse_error("# POINT TO POINT\n# OSC\nC\t0\t1\t1 bytes\t1 msgs sent\n"),
            "f.0.prof:3: C line outside its section");
  EXPECT_EQ(parse_error("# POINT TO POINT\nD\tx\tprocs: 0\n"),
            "f.0.prof:2: D line outside the '# COLLECTIVES' section");
}

TEST(ProfReaderErrors, IncompleteCommunicatorBlocks) {
  EXPECT_EQ(parse_error(kHeaders + "D\tMPI_COMM_SELF\tprocs: 0\nO2A\t0\t0 bytes\t0 msgs sent\n"),
            "f.0.prof:4: communicator block has no A2O line");
  EXPECT_EQ(parse_error(kHeaders + "A2A\t0\t0 bytes\t0 msgs sent\n"),
            "f.0.prof:4: A2A line without a preceding D line");
  EXPECT_EQ(parse_error(kHeaders + "D\tx\tprocs: 0\nA2O\t0\t0 bytes\t0 msgs sent\n"),
            "f.0.prof:5: expected O2A line, found A2O");
  EXPECT_EQ(parse_error(kHeaders + "D\tx\tmembers: 0\n"), "f.0.prof:4: D line does not end with a 'procs:' field");
  EXPECT_EQ(parse_error(kHeaders + "D\tx\tprocs: 0,\n"), "f.0.prof:4: trailing comma in the 'procs:' list");
}

TEST(ProfReaderErrors, MissingFile) {
  EXPECT_EQ(error_of([] { read_prof_file("no/such/file.0.prof", 0); }),
            "no/such/file.0.prof: cannot open: No such file or directory");
}

// format_prof writes what Open MPI writes: the real dumps of both modes (histograms on E lines,
// on I lines of pairs without E, communicator blocks) come back byte for byte.
TEST(ProfWriter, RealDumpsRoundTripByteForByte) {
  for (const char* name : {"real/mode1_sample.0.prof", "real/mode1_sample.2.prof", "real/mode2_sample.0.prof",
                           "real/mode2_sample.1.prof", "real/mode2_sample.2.prof"}) {
    const std::string text = read_text(data_path(name));
    const auto rank = parse_prof_name(name).rank;
    EXPECT_EQ(format_prof(parse_prof(text, name, rank)), text) << name;
  }
}

}  // namespace
}  // namespace mpimon
