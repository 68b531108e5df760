#include <gtest/gtest.h>

#include "mpimon/matrices/matrix_file.hpp"
#include "mpimon/results/apps.hpp"
#include "test_util.hpp"

namespace mpimon {
namespace {

using test::error_of;
using test::TempDir;

AppLaunchRecord launch(const std::string& app, std::uint32_t np, std::uint32_t pair, const std::string& arm,
                       double seconds) {
  AppLaunchRecord l;
  l.key = {app, np, pair, arm};
  l.status = "ok";
  l.seconds = l.wall_seconds = seconds;
  l.time_source = "wall";
  return l;
}

TrafficTotals traffic(std::uint64_t external, std::uint64_t internal, std::uint64_t bytes) {
  TrafficTotals t;
  t.messages[static_cast<std::size_t>(TrafficClass::external)] = external;
  t.messages[static_cast<std::size_t>(TrafficClass::internal)] = internal;
  t.messages[static_cast<std::size_t>(TrafficClass::coll)] = 1000;  // not point-to-point: not counted
  t.bytes[static_cast<std::size_t>(TrafficClass::external)] = bytes;
  return t;
}

// R's sleep data (docs/statistics.md) as the times of 10 launch pairs: off = drug 1, on = drug 2.
// R: t.test(drug2, drug1, paired = TRUE): t = 4.0621, df = 9, p = 0.002833, 95 % CI 0.7001142
// 2.4598858, mean difference 1.58; wilcox.test(drug2, drug1, paired = TRUE): V = 45, p = 0.009091.
TEST(AnalyzeApps, OverheadColumnsAreThePairedTTestOfR) {
  const double drug1[] = {0.7, -1.6, -0.2, -1.2, -0.1, 3.4, 3.7, 0.8, 0.0, 2.0};
  const double drug2[] = {1.9, 0.8, 1.1, 0.1, -0.1, 4.4, 5.5, 1.6, 4.6, 3.4};
  std::vector<AppLaunchRecord> l;
  for (std::uint32_t i = 0; i < 10; ++i) {
    l.push_back(launch("cg.small", 4, i + 1, "on", drug2[i]));
    l.push_back(launch("cg.small", 4, i + 1, "off", drug1[i]));
  }
  auto rows = analyze_apps(l);
  ASSERT_EQ(rows.size(), 1u);
  const AppRow& r = rows[0];
  EXPECT_EQ(r.app, "cg.small");
  EXPECT_EQ(r.np, 4u);
  EXPECT_EQ(r.analysis.n, 10u);
  EXPECT_NEAR(r.analysis.mean_difference, 1.58, 1e-12);
  ASSERT_TRUE(r.analysis.t_test);
  EXPECT_NEAR(r.analysis.t_test->t, 4.0621, 5e-5);
  EXPECT_NEAR(r.analysis.t_test->p_value, 0.002833, 5e-7);
  EXPECT_NEAR(r.analysis.t_test->ci.low, 0.7001142, 5e-8);
  EXPECT_NEAR(r.analysis.t_test->ci.high, 2.4598858, 5e-8);
  EXPECT_TRUE(r.analysis.significant());
  ASSERT_TRUE(r.analysis.wilcoxon);
  EXPECT_EQ(r.analysis.wilcoxon->v, 45);
  EXPECT_NEAR(r.analysis.wilcoxon->p_value, 0.009091, 5e-7);
  // Medians over pairs, by hand: drug 1 sorted -1.6 -1.2 -0.2 -0.1 0.0 0.7 0.8 2.0 3.4 3.7 -> 0.35;
  // drug 2 sorted -0.1 0.1 0.8 1.1 1.6 1.9 3.4 4.4 4.6 5.5 -> 1.75.
  EXPECT_NEAR(r.off_median, 0.35, 1e-12);
  EXPECT_NEAR(r.on_median, 1.75, 1e-12);
  // Relative: 1.58 / mean(off) = 1.58 / 0.75; no traffic recorded, so no message columns.
  ASSERT_TRUE(r.analysis.relative);
  EXPECT_NEAR(r.analysis.relative->value, 1.58 / 0.75, 1e-12);
  EXPECT_FALSE(r.messages_per_process);
  EXPECT_FALSE(r.messages_per_second);
}

// RR-9038 Table 1, row "bt A 16": monitoring time 6.449 s, non-monitored 6.443 s, 2436.25
// messages per process, overhead 0.09 %, 6044.35 messages per second (= 2436.25 * 16 / 6.449).
// Two pairs with those means; each "on" launch recorded 2436.25 * 16 = 38980 point-to-point
// messages (30000 external + 8980 internal).
TEST(AnalyzeApps, MessageColumnsReproduceTheBtRowOfTable1) {
  std::vector<AppLaunchRecord> l = {launch("bt.A", 16, 1, "off", 6.443), launch("bt.A", 16, 1, "on", 6.448),
                                    launch("bt.A", 16, 2, "on", 6.450), launch("bt.A", 16, 2, "off", 6.443)};
  l[1].traffic = traffic(30000, 8980, 16 * 1000);
  l[2].traffic = traffic(30000, 8980, 16 * 3000);
  auto rows = analyze_apps(l);
  ASSERT_EQ(rows.size(), 1u);
  const AppRow& r = rows[0];
  EXPECT_NEAR(r.analysis.mean_on, 6.449, 1e-12);
  EXPECT_NEAR(r.analysis.mean_off, 6.443, 1e-12);
  ASSERT_TRUE(r.messages_per_process && r.messages_per_second && r.external_per_process && r.bytes_per_process);
  EXPECT_DOUBLE_EQ(*r.messages_per_process, 2436.25);
  EXPECT_DOUBLE_EQ(*r.external_per_process, 30000.0 / 16);
  EXPECT_DOUBLE_EQ(*r.bytes_per_process, 2000);  // mean of 1000 and 3000 bytes per process
  EXPECT_NEAR(*r.messages_per_second, 6044.35, 0.005);
  EXPECT_NEAR(100 * r.analysis.relative->value, 0.09, 0.005);
}

// Launches pair by (app, np, pair) whatever their order; failed launches and half pairs are left
// out; each (app, np) is a row.
TEST(AnalyzeApps, PairsByKeyAndSkipsFailedLaunches) {
  std::vector<AppLaunchRecord> l = {launch("lu", 2, 2, "on", 12),  launch("lu", 4, 1, "on", 7),
                                    launch("lu", 2, 1, "off", 10), launch("lu", 2, 2, "off", 10),
                                    launch("lu", 2, 1, "on", 11),  launch("lu", 4, 1, "off", 6),
                                    launch("lu", 2, 3, "on", 99),  launch("lu", 2, 3, "off", 10)};
  l[6].status = "exit code 1: boom";
  auto rows = analyze_apps(l);
  ASSERT_EQ(rows.size(), 2u);
  EXPECT_EQ(rows[0].np, 2u);
  EXPECT_EQ(rows[0].analysis.n, 2u);
  EXPECT_DOUBLE_EQ(rows[0].analysis.mean_difference, 1.5);  // (11 - 10 + 12 - 10) / 2
  EXPECT_EQ(rows[1].np, 4u);
  EXPECT_EQ(rows[1].analysis.n, 1u);
  EXPECT_FALSE(rows[1].analysis.t_test);  // one pair: no t-test
}

TEST(AppPairs, RelativeOverheadAndTheOffLaunchsShare) {
  std::vector<AppLaunchRecord> l = {launch("stencil", 2, 1, "off", 4), launch("stencil", 2, 1, "on", 5)};
  l[0].comm_share = 0.3;
  l[1].comm_share = 0.9;
  auto p = app_pairs(l);
  ASSERT_EQ(p.size(), 1u);
  EXPECT_DOUBLE_EQ(p[0].relative, 0.25);
  EXPECT_DOUBLE_EQ(*p[0].comm_share, 0.3);
  auto rows = analyze_apps(l);
  EXPECT_DOUBLE_EQ(*rows.at(0).comm_share, 0.3);
}

// bench placement's arms: B is compared with A as "on" with "off"; launches of other arms are not
// paired. Times by hand: A 2, 4, 6 and B 1, 2, 4 -> differences -1, -2, -2, mean -5/3; relative
// -5/3 / 4 = -5/12.
TEST(AnalyzeApps, OtherArmsArePairedAsBaseAndOther) {
  std::vector<AppLaunchRecord> l = {launch("cg", 2, 1, "A", 2),   launch("cg", 2, 1, "B", 1),
                                    launch("cg", 2, 2, "B", 2),   launch("cg", 2, 2, "A", 4),
                                    launch("cg", 2, 3, "A", 6),   launch("cg", 2, 3, "B", 4),
                                    launch("cg", 2, 4, "off", 9), launch("cg", 2, 4, "on", 9)};
  const ArmPair arms{"A", "B"};
  auto rows = analyze_apps(l, 0.95, arms);
  ASSERT_EQ(rows.size(), 1u);
  EXPECT_EQ(rows[0].analysis.n, 3u);
  EXPECT_DOUBLE_EQ(rows[0].analysis.mean_off, 4);
  EXPECT_DOUBLE_EQ(rows[0].analysis.mean_on, 7.0 / 3);
  EXPECT_NEAR(rows[0].analysis.relative->value, -5.0 / 12, 1e-12);
  auto pairs = app_pairs(l, arms);
  ASSERT_EQ(pairs.size(), 3u);
  EXPECT_DOUBLE_EQ(pairs[1].off, 4);
  EXPECT_DOUBLE_EQ(pairs[1].on, 2);
  // The default arms see only the off/on pair.
  EXPECT_EQ(app_pairs(l).size(), 1u);
}

TEST(ArmsOf, ReadsTheConfigurationsArms) {
  EXPECT_EQ(arms_of({}).base, "off");
  EXPECT_EQ(arms_of({}).other, "on");
  const ArmPair ab = arms_of({{"arms", "A,B"}});
  EXPECT_EQ(ab.base, "A");
  EXPECT_EQ(ab.other, "B");
  for (const char* bad : {"A", "A,", ",B", "A,B,C"}) {
    EXPECT_NE(error_of([&] { arms_of({{"arms", bad}}); }).find("do not name two arms"), std::string::npos) << bad;
  }
}

TEST(WorkloadReport, FindsTheTaggedLineAmongOtherOutput) {
  const std::string out =
      "warning: something\nmpimon-workload: {\"workload\":\"cg\",\"class\":\"small\",\"np\":2,\"iterations\":5,"
      "\"seconds\":1.25,\"comm_seconds\":0.5,\"comm_share\":0.4,\"messages_sent\":120,\"bytes_sent\":9600,"
      "\"check\":\"residual\",\"check_value\":1e-9,\"passed\":true}\nbye\n";
  auto r = find_workload_report(out, "launch 3");
  ASSERT_TRUE(r);
  EXPECT_DOUBLE_EQ(r->seconds, 1.25);
  EXPECT_DOUBLE_EQ(r->comm_share, 0.4);
  EXPECT_EQ(r->messages_sent, 120u);
  EXPECT_EQ(r->bytes_sent, 9600u);
  EXPECT_TRUE(r->passed);
  EXPECT_EQ(r->json.front(), '{');
  EXPECT_FALSE(find_workload_report("no report here\n", "x"));
}

TEST(WorkloadReport, RejectsBadReports) {
  EXPECT_EQ(error_of([] { find_workload_report("mpimon-workload: {\"seconds\": 1}\n", "launch 2"); }),
            "launch 2: workload report: 'comm_share' is missing");
  EXPECT_EQ(error_of([] { find_workload_report("mpimon-workload: {\"seconds\": \"1\"}\n", "launch 2"); }),
            "launch 2: workload report: 'seconds' is not a finite number");
  EXPECT_NE(error_of([] {
              find_workload_report("mpimon-workload: {oops\n", "launch 2");
            }).find("launch 2: workload report: not JSON: syntax error"),
            std::string::npos);
  EXPECT_EQ(error_of([] {
              find_workload_report(
                  "mpimon-workload: {\"seconds\":1,\"comm_share\":1.5,\"messages_sent\":1,"
                  "\"bytes_sent\":1,\"passed\":true}",
                  "l");
            }),
            "l: workload report with seconds < 0 or comm_share outside 0..1");
}

// The configuration's attribute names are read whole, whatever their length (HDF5 keeps them so).
TEST(ResultsConfiguration, KeepsAttributeNamesOfAnyLength) {
  TempDir dir;
  const std::string path = dir.file("long.h5");
  const std::string long_name(300, 'k');
  AppResults::create(path, {{long_name, "v"}, {"np", "2"}});
  const auto configuration = AppResults(path).configuration();
  EXPECT_EQ(configuration.size(), 2u);
  EXPECT_EQ(configuration.at(long_name), "v");
  EXPECT_EQ(configuration.at("np"), "2");
}

TEST(AppResults, RoundTripsLaunchesAndMarksCompletedOnes) {
  TempDir dir;
  const std::string path = dir.file("apps.h5");
  AppResults::create(path, {{"np", "2"}, {"pairs", "1"}});
  AppResults results(path);
  AppLaunchRecord on = launch("hpcc", 2, 1, "on", 3.5);
  on.traffic = traffic(7, 3, 640);
  on.comm_share = 0.125;
  on.report = "{\"x\":1}";
  AppLaunchRecord off = launch("hpcc", 2, 1, "off", 3.25);
  off.status = "timeout after 5 s";
  results.append(on);
  results.append(off);
  auto back = results.launches();
  ASSERT_EQ(back.size(), 2u);
  EXPECT_EQ(back[0].key, on.key);
  EXPECT_EQ(back[0].seconds, 3.5);
  EXPECT_EQ(*back[0].comm_share, 0.125);
  EXPECT_EQ(back[0].report, on.report);
  ASSERT_TRUE(back[0].traffic);
  EXPECT_EQ(back[0].traffic->point_to_point_messages(), 10u);
  EXPECT_FALSE(back[1].traffic);
  EXPECT_EQ(back[1].status, "timeout after 5 s");
  EXPECT_EQ(results.completed(), (std::set<AppLaunchKey>{on.key}));
  EXPECT_EQ(results.configuration().at("pairs"), "1");
  results.write_analysis(analyze_apps(back), app_pairs(back));
  EXPECT_EQ(hdf5_format_of(path), kAppsFormat);
  // The bindings a launch reported are kept; a launch without any has none.
  AppLaunchRecord bound = launch("hpcc", 2, 2, "on", 1);
  bound.bindings = "[vm:1] MCW rank 0 bound to socket 0[core 1[hwt 0]]: [./B]\n[vm:1] MCW rank 1 bound to ...";
  results.append(bound);
  back = results.launches();
  ASSERT_EQ(back.size(), 3u);
  EXPECT_EQ(back[2].bindings, bound.bindings);
  EXPECT_EQ(back[0].bindings, "");
  // So are the reordering library's statistics (bench placement --arm reorder), and compact keeps them.
  AppLaunchRecord reordered = launch("gmx", 2, 3, "B", 2);
  reordered.reorder_stats = "{\"call\":\"MPI_Cart_create\",\"reordered\":true}\n{\"call\":\"MPI_Graph_create\"}\n";
  results.append(reordered);
  back = results.launches();
  ASSERT_EQ(back.size(), 4u);
  EXPECT_EQ(back[3].reorder_stats, reordered.reorder_stats);
  EXPECT_EQ(compact(back[3]).reorder_stats, reordered.reorder_stats);
  EXPECT_EQ(back[2].reorder_stats, "");
}

}  // namespace
}  // namespace mpimon
