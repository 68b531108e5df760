#include <gtest/gtest.h>

#include "mpimon/results/arms.hpp"
#include "mpimon/results/overhead.hpp"
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
  LaunchRecord calibrated = launch("off", 1, 100);
  calibrated.spin_mean_ns = 10.5;
  calibrated.spin_ranks_ns = "9.0000,12.0000";
  r.append(calibrated);
  LaunchRecord failed = launch("on", 1, 100);
  failed.status = "exit code 1";
  failed.benchmarks.clear();
  r.append(failed);
  auto all = r.launches();
  ASSERT_EQ(all.size(), 2u);
  EXPECT_EQ(all[0].benchmarks.at(0).ns, (std::vector<double>{99, 100, 101}));
  EXPECT_EQ(all[0].spin_mean_ns, 10.5);
  EXPECT_EQ(all[0].spin_ranks_ns, "9.0000,12.0000");
  EXPECT_FALSE(all[1].spin_mean_ns);
  EXPECT_EQ(all[1].spin_ranks_ns, "");
  EXPECT_EQ(all[1].status, "exit code 1");
  EXPECT_EQ(r.completed(), (std::set<LaunchKey>{{"shared", 4, 1, "off"}}));
  r.write_analysis(analyze_overhead(all));
  r.write_analysis(analyze_overhead(all));  // rewriting replaces the table
  EXPECT_EQ(error_of([&] { OverheadResults x(dir.write("t.h5", "x")); }),
            dir.file("t.h5") + ": not a readable HDF5 file");
}

// The clock of each launch, from the context Google Benchmark wrote (an excerpt of a real file's
// layout); a launch without the key comes from a program older than the clock.
// The delivered cost of a calibration sweep: a delay launch's figure minus its off partner's
// (pair 1: 10.5 - 0.5; pair 2 has no off launch and does not count), and an interleaved launch's
// own figure (12): mean (10 + 12) / 2 = 11; a failed launch is left out.
TEST(InjectedCost, AveragesDelayPairsAndInterleavedLaunches) {
  auto with_spin = [](const std::string& arm, std::uint32_t pair, double spin) {
    LaunchRecord l = launch(arm, pair, 100);
    l.spin_mean_ns = spin;
    return l;
  };
  LaunchRecord failed = with_spin("interleaved-delay10", 4, 50);
  failed.status = "exit code 1";
  const auto cost = injected_cost({with_spin("off", 1, 0.5), with_spin("delay10", 1, 10.5), with_spin("delay10", 2, 30),
                                   with_spin("interleaved-delay10", 3, 12), failed});
  EXPECT_EQ(cost, (std::map<std::pair<std::string, std::uint32_t>, double>{{{"shared", 4}, 11.0}}));
}

// The arms as docs/overhead.md names them.
TEST(Arms, NamesOfTheLaunchesAndComparisons) {
  EXPECT_EQ(calibration_arm(5, 0), "delay5");
  EXPECT_EQ(calibration_arm(5, 3), "loops3");
  EXPECT_EQ(calibration_arm(0, 0), "");
  EXPECT_EQ(interleaved_arm(kArmCounting), "interleaved-counting");
  EXPECT_TRUE(is_interleaved_arm("interleaved-delay5"));
  EXPECT_FALSE(is_interleaved_arm("delay5"));
  EXPECT_EQ(switched_by("interleaved-delay5"), "delay5");
  EXPECT_EQ(comparison_title("mpit_off", "pairs"), "monitoring loaded, stopped through MPI_T, vs off");
  EXPECT_EQ(comparison_title("counting", "interleaved"), "monitoring's counting on vs stopped (interleaved blocks)");
  EXPECT_EQ(comparison_title("delay5", "pairs"), "");
}

TEST(LaunchClocks, NamesTheClockOfEachLaunch) {
  LaunchRecord tsc, old, failed, mono;
  tsc.status = old.status = mono.status = "ok";
  failed.status = "exit code 1";
  tsc.benchmark_json =
      "{\n  \"context\": {\n    \"clock\": \"tsc\",\n    \"clock_note\": \"a \\\"quoted\\\" word\",\n"
      "    \"tsc_ticks_per_ns\": \"2.096030\"\n  }\n}";
  mono.benchmark_json = "{\"context\": {\"clock\": \"monotonic_raw\"}}";
  old.benchmark_json = "{\"context\": {\"timer\": \"clock_gettime\"}}";
  failed.benchmark_json = tsc.benchmark_json;
  EXPECT_EQ(benchmark_context(tsc, "clock_note"), "a \"quoted\" word");
  EXPECT_EQ(benchmark_context(old, "clock"), "");
  const auto clocks = launch_clocks({tsc, tsc, old, failed, mono});
  EXPECT_EQ(clocks, (std::map<std::string, std::size_t>{{"tsc (2.096030 ticks/ns)", 2},
                                                        {"monotonic_raw", 1},
                                                        {"monotonic_raw (not recorded: older program)", 1}}));
  // Launches that calibrated the TSC a tick apart are one clock with a range (cli.bench_overhead
  // once saw two lines for one machine).
  LaunchRecord faster = tsc, slower = tsc;
  faster.benchmark_json.replace(faster.benchmark_json.find("2.096030"), 8, "2.096031");
  slower.benchmark_json.replace(slower.benchmark_json.find("2.096030"), 8, "2.096029");
  EXPECT_EQ(launch_clocks({tsc, faster, slower, mono}),
            (std::map<std::string, std::size_t>{{"tsc (2.096029 to 2.096031 ticks/ns)", 3}, {"monotonic_raw", 1}}));
}

// The interleaved design's bookkeeping on a hand-made run: 4 blocks of 4 iterations in ABBA order
// (on, off, off, on), on blocks 10 ns slower. Block pairs are (1, 2) and (3, 4); the expected
// interquartile means are the blocks' constant values, written here by hand.
TEST(Interleaved, BlockPairsFollowTheAbbaOrder) {
  const auto blocks = read_blocks("send\t8\t4\t1001\t4,0,0,4\nalltoall\t0\t4\t1001\t-,-,-,-\n", "b.txt");
  ASSERT_EQ(blocks.size(), 2u);
  EXPECT_EQ(blocks[0].op, "send");
  EXPECT_EQ(blocks[0].size, 8u);
  EXPECT_EQ(blocks[0].block_length, 4u);
  EXPECT_EQ(blocks[0].counted[3], std::optional<std::uint64_t>(4));
  EXPECT_FALSE(blocks[1].counted[0].has_value());
  const std::vector<double> samples{110, 110, 110, 110, 100, 100, 100, 100, 101, 101, 101, 101, 111, 111, 111, 111};
  const BlockPairs p = interleaved_block_pairs(blocks[0], samples);
  EXPECT_EQ(p.problem, "");
  EXPECT_EQ(p.on, (std::vector<double>{110, 111}));
  EXPECT_EQ(p.off, (std::vector<double>{100, 101}));
}

// The program's lines (bench/micro writes them with bench_files.hpp) as the results read them back.
TEST(BenchFiles, WhatTheProgramWritesReadsBack) {
  TempDir dir;
  const std::string samples = dir.write("s.txt", samples_line("send", 8, std::vector<std::int64_t>{120, 95, 100}) +
                                                     samples_line("bcast", 0, std::vector<std::int64_t>{7}));
  EXPECT_EQ(samples_line("send", 8, std::vector<std::int64_t>{120, 95, 100}), "send\t8\t120,95,100\n");
  const auto b = read_bench_samples(samples);
  ASSERT_EQ(b.size(), 2u);
  EXPECT_EQ(b[0].op, "send");
  EXPECT_EQ(b[0].size, 8u);
  EXPECT_EQ(b[0].ns, (std::vector<double>{120, 95, 100}));
  EXPECT_EQ(b[1].ns, (std::vector<double>{7}));
  BenchmarkBlocks written{"alltoall", 64, 4, "1001", {4, std::nullopt, 0, 5}};
  EXPECT_EQ(blocks_line(written), "alltoall\t64\t4\t1001\t4,-,0,5\n");
  const auto read = read_blocks(blocks_line(written), "b.txt");
  ASSERT_EQ(read.size(), 1u);
  EXPECT_EQ(read[0].op, written.op);
  EXPECT_EQ(read[0].size, written.size);
  EXPECT_EQ(read[0].block_length, written.block_length);
  EXPECT_EQ(read[0].states, written.states);
  EXPECT_EQ(read[0].counted, written.counted);
}

TEST(Interleaved, RefusesBrokenBookkeeping) {
  const std::vector<double> samples(16, 100.0);
  auto problem = [&](const std::string& line, std::size_t n = 16) {
    return interleaved_block_pairs(read_blocks(line, "b.txt").at(0),
                                   std::vector<double>(samples.begin(), samples.begin() + n))
        .problem;
  };
  EXPECT_EQ(problem("send\t8\t4\t1001\t4,0,0,4\n", 12), "12 samples for 4 blocks of 4 (whole block pairs expected)");
  EXPECT_EQ(problem("send\t8\t4\t1010\t4,0,4,0\n"), "blocks 1010 are not in ABBA order (1001)");
  EXPECT_EQ(problem("send\t8\t4\t1001\t4,3,0,4\n"),
            "block 2 was switched off but counted 3 records: MPI_T did not switch the counting");
  EXPECT_EQ(problem("send\t8\t4\t1001\t4,0,0,0\n"), "block 4 was switched on but counted nothing");
  EXPECT_EQ(error_of([] { read_blocks("send\t8\t4\t10x1\t1,0,0,1\n", "b.txt"); }),
            "b.txt:1: not a size, a block length, 0/1 states and counts");
  EXPECT_EQ(error_of([] { read_blocks("send\t8\t4\t1001\t1,0,0\n", "b.txt"); }), "b.txt:1: not one count per block");
}

// Interleaved launches become cells of design "interleaved", one observation per launch (the
// mean of its block pairs): 2 launches of 2 block pairs each (differences 4 and 2, then 6 and 4)
// give 2 observations, differences 3 and 5; a launch whose switch did not switch is left out and
// named.
TEST(Interleaved, AnalysisTakesEachLaunchAsOneObservation) {
  auto interleaved = [](std::uint32_t pair, double on, const std::string& counted) {
    LaunchRecord r = launch("interleaved-counting", pair, 0);
    r.benchmarks[0].ns = {on, on, 100, 100, 100, 100, on - 2, on - 2};
    r.blocks = r.benchmarks[0].op + "\t" + std::to_string(r.benchmarks[0].size) + "\t2\t1001\t" + counted + "\n";
    return r;
  };
  std::vector<LaunchRecord> l = {interleaved(1, 104, "2,0,0,2"), interleaved(2, 106, "2,0,0,2"),
                                 interleaved(3, 900, "2,2,2,2")};
  auto cells = analyze_overhead(l);
  ASSERT_EQ(cells.size(), 1u);
  EXPECT_EQ(cells[0].design, "interleaved");
  EXPECT_EQ(cells[0].arm, "counting");
  EXPECT_EQ(cells[0].analysis.n, 2u);
  EXPECT_DOUBLE_EQ(cells[0].analysis.mean_difference, 4);
  ASSERT_TRUE(cells[0].analysis.t_test.has_value());
  EXPECT_DOUBLE_EQ(cells[0].analysis.t_test->df, 1);  // launches, not block pairs
  const auto problems = interleaving_problems(l);
  ASSERT_EQ(problems.size(), 1u);
  EXPECT_NE(problems[0].find("pair 3"), std::string::npos);
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

// A compact interleaved launch keeps each block's interquartile mean, all the interleaved design
// uses: blocks of 4 samples with an outlier (1, 100, 100, 1000: interquartile mean 100, mean 300).
// Launch 1: on blocks 110 and 108, off 100 and 100 (difference 9); launch 2: on 106 and 104, off
// 101 and 99 (difference 5): mean difference 7 by hand, with or without the samples.
TEST(OverheadResults, CompactInterleavedLaunchesKeepTheirBlocks) {
  auto block = [](double v) { return std::vector<double>{1, v, v, 1000}; };
  auto interleaved = [&](std::uint32_t pair, std::vector<double> iqms) {
    LaunchRecord r = launch("interleaved-counting", pair, 0);
    r.benchmarks[0].ns.clear();
    for (double v : iqms) {
      const auto b = block(v);
      r.benchmarks[0].ns.insert(r.benchmarks[0].ns.end(), b.begin(), b.end());
    }
    r.blocks = r.benchmarks[0].op + "\t" + std::to_string(r.benchmarks[0].size) + "\t4\t1001\t3,0,0,3\n";
    return r;
  };
  const std::vector<LaunchRecord> full = {interleaved(1, {110, 100, 100, 108}), interleaved(2, {106, 101, 99, 104})};
  TempDir dir;
  auto path = dir.file("c.h5");
  OverheadResults::create(path, {{"pairs", "2"}});
  OverheadResults r(path);
  for (const auto& l : full) r.append(compact(l));
  const auto read = r.launches();
  ASSERT_EQ(read.size(), 2u);
  EXPECT_TRUE(read[0].benchmarks.at(0).ns.empty());
  EXPECT_EQ(read[0].benchmarks.at(0).block_iqm, (std::vector<double>{110, 100, 100, 108}));
  EXPECT_EQ(read[1].blocks, full[1].blocks);
  for (const auto& launches : {full, read}) {
    const auto cells = analyze_overhead(launches);
    ASSERT_EQ(cells.size(), 1u);
    EXPECT_EQ(cells[0].design, "interleaved");
    EXPECT_EQ(cells[0].analysis.n, 2u);
    EXPECT_DOUBLE_EQ(cells[0].analysis.mean_difference, 7);
  }
  // Block means that do not match the blocks are named, not paired.
  LaunchRecord broken = read[0];
  broken.benchmarks[0].block_iqm.pop_back();
  const auto problems = interleaving_problems({broken});
  ASSERT_EQ(problems.size(), 1u);
  EXPECT_NE(problems[0].find("3 block means for 4 blocks"), std::string::npos) << problems[0];
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
