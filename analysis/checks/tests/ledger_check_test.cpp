// The comparison of recorded matrices with ledgers, on dumps written by hand and real dumps.

#include <gtest/gtest.h>

#include "mpimon/checks/ledger_check.hpp"
#include "mpimon/matrices/merge.hpp"
#include "test_util.hpp"

namespace mpimon {
namespace {

using test::histogram_text;
using test::TempDir;

// A dump written by hand that agrees with a ledger except where the test says.
TEST(CompareWithLedgers, FindsEveryDifference) {
  TempDir dir;
  const std::string tail = "# OSC\n# COLLECTIVES\n";
  // Rank 0 sent 2 messages (8 and 1000 bytes) to 1; the dump says 3 messages and 1008 bytes.
  auto f0 = dir.write("d.0.prof", "# POINT TO POINT\nE\t0\t1\t1008 bytes\t3 msgs sent\t" +
                                      histogram_text({{4, 1}, {10, 2}}) + "\n" + tail);
  auto f1 = dir.write("d.1.prof", "# POINT TO POINT\n" + tail);
  merge_prof_files({f0, f1}, dir.file("m.h5"), {});
  MatrixFile file(dir.file("m.h5"));
  Ledger l0(0, 2), l1(1, 2);
  l0.record(TrafficClass::external, 1, 8);
  l0.record(TrafficClass::external, 1, 1000);
  auto mismatches = compare_with_ledgers(file, "d", {l0, l1}, {});
  std::vector<std::string> text;
  for (auto& m : mismatches) text.push_back(m.what);
  EXPECT_EQ(text, (std::vector<std::string>{"external 0->1 count: recorded 3, sent 2",
                                            "histogram 0->1 bucket 10: recorded 2, sent 1"}));
  // With a 0-byte message added, counts and bytes agree; the histograms still do not.
  l0.record(TrafficClass::external, 1, 0);
  text.clear();
  for (auto& m : compare_with_ledgers(file, "d", {l0, l1}, {})) text.push_back(m.what);
  EXPECT_EQ(text, (std::vector<std::string>{"histogram 0->1 bucket 0: recorded 0, sent 1",
                                            "histogram 0->1 bucket 10: recorded 2, sent 1"}));
}

TEST(HistogramConsistency, RealDumpsCountEveryPointToPointMessage) {
  TempDir dir;
  std::vector<std::string> files;
  for (int r = 0; r < 3; ++r) files.push_back(test::data_path("real/mode2_sample." + std::to_string(r) + ".prof"));
  merge_prof_files(files, dir.file("m.h5"), {});
  MatrixFile file(dir.file("m.h5"));
  EXPECT_TRUE(histogram_consistency(RecordedTraffic::read(file, "mode2_sample")).empty());
}

TEST(HistogramConsistency, ReportsAHistogramThatMissesMessages) {
  TempDir dir;
  auto f0 = dir.write("d.0.prof", "# POINT TO POINT\nE\t0\t1\t8 bytes\t2 msgs sent\t" + histogram_text({{4, 1}}) +
                                      "\n# OSC\n# COLLECTIVES\n");
  merge_prof_files({f0}, dir.file("m.h5"), {});
  MatrixFile file(dir.file("m.h5"));
  auto found = histogram_consistency(RecordedTraffic::read(file, "d"));
  ASSERT_EQ(found.size(), 1u);
  EXPECT_EQ(found[0].what, "histogram 0->1 counts 1 messages, E + I say 2");
}

}  // namespace
}  // namespace mpimon
