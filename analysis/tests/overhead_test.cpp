#include <gtest/gtest.h>

#include "mpimon/overhead.hpp"
#include "test_util.hpp"

namespace mpimon {
namespace {

using test::error_of;
using test::TempDir;

TEST(BenchSamples, ReadsTheSamplesFile) {
  TempDir dir;
  auto p = dir.write("s.txt", "send\t0\t100,200,300\nbcast\t1024\t5\n");
  auto b = read_bench_samples(p);
  ASSERT_EQ(b.size(), 2u);
  EXPECT_EQ(b[0].op, "send");
  EXPECT_EQ(b[0].size, 0u);
  EXPECT_EQ(b[0].ns, (std::vector<double>{100, 200, 300}));
  EXPECT_EQ(b[1].size, 1024u);
}

TEST(BenchSamples, RejectsMalformedLines) {
  TempDir dir;
  auto p = dir.write("s.txt", "send\t0\t100,2x0\n");
  EXPECT_EQ(error_of([&] { read_bench_samples(p); }), p + ":1: not a size and a list of non-negative numbers");
  auto q = dir.write("t.txt", "send 0 100\n");
  EXPECT_EQ(error_of([&] { read_bench_samples(q); }), q + ":1: expected op<TAB>size<TAB>values");
}

// Quantiles by hand (R's type 7) for 1..10: median 5.5, q1 3.25, q3 7.75, d1 1.9, d9 9.1.
TEST(Summarize, QuantilesOfTypeSeven) {
  SampleSummary s = summarize({10, 9, 8, 7, 6, 5, 4, 3, 2, 1});
  EXPECT_DOUBLE_EQ(s.median, 5.5);
  EXPECT_DOUBLE_EQ(s.q1, 3.25);
  EXPECT_DOUBLE_EQ(s.q3, 7.75);
  EXPECT_DOUBLE_EQ(s.d1, 1.9);
  EXPECT_DOUBLE_EQ(s.d9, 9.1);
  EXPECT_DOUBLE_EQ(s.mean, 5.5);
  EXPECT_DOUBLE_EQ(s.iqm, 5.5);  // 3..8
  // The interquartile mean ignores the outlier: sorted 1..7, 100 -> mean of 3, 4, 5, 6.
  EXPECT_DOUBLE_EQ(summarize({100, 1, 2, 3, 4, 5, 6, 7}).iqm, 4.5);
}

LaunchRecord launch(const std::string& arm, std::uint32_t pair, double median) {
  LaunchRecord l;
  l.key = {"shared", 4, pair, arm};
  l.status = "ok";
  l.benchmarks = {{"alltoall", 64, {median - 1, median, median + 1}}};
  return l;
}

// Pairs are matched by pair number, whatever the order of launches; differences 8, 10, 12 give a
// mean of 10 ns, 2.5 ns per process at np 4, and 10/off relative.
TEST(AnalyzeOverhead, PairsLaunchesByPairNumber) {
  std::vector<LaunchRecord> l = {launch("on", 2, 110), launch("off", 1, 100), launch("off", 2, 100),
                                 launch("on", 1, 108), launch("off", 3, 100), launch("on", 3, 112)};
  LaunchRecord failed = launch("on", 4, 5000);
  failed.status = "timeout after 600 s";
  l.push_back(failed);
  auto cells = analyze_overhead(l);
  ASSERT_EQ(cells.size(), 1u);
  const OverheadCell& c = cells[0];
  EXPECT_EQ(c.arm, "on");
  EXPECT_EQ(c.np, 4u);
  EXPECT_EQ(c.analysis.n, 3u);
  EXPECT_DOUBLE_EQ(c.analysis.mean_difference, 10);
  EXPECT_DOUBLE_EQ(c.per_process.value, 2.5);
  ASSERT_TRUE(c.analysis.relative.has_value());
  EXPECT_DOUBLE_EQ(c.analysis.relative->value, 0.1);
  ASSERT_TRUE(c.p_adjusted.has_value());  // one cell: BH leaves p unchanged
  EXPECT_DOUBLE_EQ(*c.p_adjusted, c.analysis.t_test->p_value);
}

TEST(OverheadResults, AppendsAndReadsBack) {
  TempDir dir;
  auto path = dir.file("r.h5");
  OverheadResults::create(path, {{"ops", "alltoall"}, {"pairs", "3"}});
  OverheadResults r(path);
  EXPECT_EQ(r.configuration().at("ops"), "alltoall");
  r.append(launch("off", 1, 100));
  LaunchRecord failed = launch("on", 1, 100);
  failed.status = "exit code 1";
  failed.benchmarks.clear();
  r.append(failed);
  auto all = r.launches();
  ASSERT_EQ(all.size(), 2u);
  EXPECT_EQ(all[0].benchmarks.at(0).ns, (std::vector<double>{99, 100, 101}));
  EXPECT_EQ(all[1].status, "exit code 1");
  EXPECT_EQ(r.completed(), (std::set<LaunchKey>{{"shared", 4, 1, "off"}}));
  r.write_analysis(analyze_overhead(all));
  r.write_analysis(analyze_overhead(all));  // rewriting replaces the table
  EXPECT_EQ(error_of([&] { OverheadResults x(dir.write("t.h5", "x")); }),
            dir.file("t.h5") + ": not a readable HDF5 file");
}

// A compact file keeps each benchmark's summary instead of its samples: read back, the analysis
// sees the same interquartile means as from the samples.
TEST(OverheadResults, CompactRecordsKeepTheSummaries) {
  TempDir dir;
  auto path = dir.file("c.h5");
  OverheadResults::create(path, {{"pairs", "2"}});
  OverheadResults r(path);
  std::vector<LaunchRecord> full = {launch("off", 1, 100), launch("on", 1, 110), launch("off", 2, 100),
                                    launch("on", 2, 108)};
  full[0].command = "/some/path/mpirun ...";
  for (const auto& l : full) r.append(compact(l));
  auto read = r.launches();
  ASSERT_EQ(read.size(), 4u);
  const auto& b = read[0].benchmarks.at(0);
  EXPECT_TRUE(b.ns.empty());
  ASSERT_TRUE(b.summary.has_value());
  EXPECT_DOUBLE_EQ(b.summary->iqm, 100);  // 99, 100, 101: the middle one
  EXPECT_DOUBLE_EQ(b.summary->min, 99);
  EXPECT_EQ(b.summary->samples, 3u);
  EXPECT_EQ(read[0].command, "");
  auto cells = analyze_overhead(read);
  ASSERT_EQ(cells.size(), 1u);
  EXPECT_DOUBLE_EQ(cells[0].analysis.mean_difference, 9);  // (10 + 8) / 2
}

// The launches CSV of `mpimon show --launches-csv`: values as written, a failed launch kept.
TEST(LaunchesCsv, ReadsSummariesAndFailedLaunches) {
  TempDir dir;
  const std::string header =
      "launch,transport,np,pair,arm,position,status,seconds,op,size,samples,median_ns,q1_ns,q3_ns,d1_ns,d9_ns,"
      "mean_ns,min_ns,max_ns,iqm_ns\n";
  auto path = dir.write("l.csv", header +
                                     "1,shared,2,1,off,0,ok,2.5,send,0,1000,50,40,60,40,70,53.361,40,140,51.508\n"
                                     "1,shared,2,1,off,0,ok,2.5,send,8,1000,51,40,60,40,70,54,40,140,52.25\n"
                                     "2,shared,2,1,on,1,exit code 1,0.5,,,0,,,,,,,,,\n");
  auto launches = read_launches_csv(path);
  ASSERT_EQ(launches.size(), 2u);
  EXPECT_EQ(launches[0].key, (LaunchKey{"shared", 2, 1, "off"}));
  ASSERT_EQ(launches[0].benchmarks.size(), 2u);
  EXPECT_EQ(launches[0].benchmarks[1].size, 8u);
  EXPECT_DOUBLE_EQ(launches[0].benchmarks[0].summary->iqm, 51.508);
  EXPECT_EQ(launches[0].benchmarks[0].summary->samples, 1000u);
  EXPECT_EQ(launches[1].status, "exit code 1");
  EXPECT_TRUE(launches[1].benchmarks.empty());
  auto bad = dir.write("b.csv", header + "1,shared,2,1,off,0,ok,2.5,send,0,1000,50,40,60,40,70,x,40,140,51\n");
  EXPECT_EQ(error_of([&] { read_launches_csv(bad); }), bad + ":2: mean_ns is not a number: 'x'");
  auto short_row = dir.write("s.csv", header + "1,shared,2\n");
  EXPECT_EQ(error_of([&] { read_launches_csv(short_row); }), short_row + ":2: expected 20 fields, found 3");
}

}  // namespace
}  // namespace mpimon
