// The gate's measures and verdicts (docs/gate.md). Expected values are derived by hand in the
// comments: a small callgrind file written here, and timing summaries whose Welch statistics are
// worked out below. The end-to-end proof (an injected cost fails the gate) is CTest cli.gate.

#include <gtest/gtest.h>

#include <cmath>
#include <sstream>

#include "mpimon/results/gate.hpp"
#include "test_util.hpp"

namespace mpimon {
namespace {

// One dump in callgrind's format (--compress-strings=no --compress-pos=no), 10 sends:
//   libmpi PMPI_Send -> pml monitoring send: inclusive 5000 (enters the monitoring)
//   pml monitoring send: self 300, -> common record_pml inclusive 400 (monitoring helper),
//                        -> internal helper of the same object 20 (no cob: same object),
//                        -> ob1 send inclusive 4280 (the wrapped call)
//   coll tuned -> pml monitoring isend: inclusive 70 (a collective's message, monitoring only)
//   probe -> libmpi PMPI_Send: inclusive 5100 (not monitoring)
// Monitoring's own cost = 5000 + 70 - 4280 = 790 (= 300 + 400 + 20 + 70).
constexpr const char* kDump = R"(# callgrind format
version: 1
creator: callgrind-3.19.0
desc: Trigger: Client Request: mpimon-gate send 8 10
positions: line
events: Ir

ob=/opt/ompi/lib/libmpi.so.40.30.4
fl=???
fn=PMPI_Send
0 100
cob=/opt/ompi/lib/openmpi/mca_pml_monitoring.so
cfi=???
cfn=mca_pml_monitoring_send
calls=10 0
0 5000

ob=/opt/ompi/lib/openmpi/mca_pml_monitoring.so
fl=???
fn=mca_pml_monitoring_send
0 300
cob=/opt/ompi/lib/libmca_common_monitoring.so.50
cfi=???
cfn=mca_common_monitoring_record_pml
calls=10 0
0 400
cfn=0x0000000000002400
calls=10 0
0 20
cob=/opt/ompi/lib/openmpi/mca_pml_ob1.so
cfi=???
cfn=mca_pml_ob1_send
calls=10 0
0 4280

ob=/opt/ompi/lib/openmpi/mca_coll_tuned.so
fl=???
fn=tuned
0 9
cob=/opt/ompi/lib/openmpi/mca_pml_monitoring.so
cfn=mca_pml_monitoring_isend
calls=1 0
0 70

ob=/build/mpimon-gate-probe
fl=probe.cpp
fn=loop
3 7
cob=/opt/ompi/lib/libmpi.so.40.30.4
cfn=PMPI_Send
calls=10 3
3 5100
)";

TEST(GateCallgrind, MonitoringOwnCostFromCallArcs) {
  test::TempDir dir;
  auto dump = read_callgrind_dump(dir.write("cg.out.1", kDump));
  EXPECT_EQ(dump.op, "send");
  EXPECT_EQ(dump.size, 8u);
  EXPECT_EQ(dump.count, 10u);
  EXPECT_EQ(dump.monitoring, 790u);
  EXPECT_EQ(dump.objects.size(), 6u);
}

TEST(GateCallgrind, RejectsDumpsNotOfTheProbe) {
  test::TempDir dir;
  const std::string path = dir.write("cg.out.1", "# callgrind format\nevents: Ir\nfn=main\n0 5\n");
  try {
    read_callgrind_dump(path);
    FAIL() << "accepted";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find(path + ": no 'mpimon-gate' client-request label"), std::string::npos)
        << e.what();
  }
  EXPECT_THROW(read_callgrind_dump(dir.file("absent")), Error);
}

TEST(GateCallgrind, PerOperationFromNAnd2N) {
  // (1540 - 790) / 10 = 75, exact; (1541 - 790) / 10 = 75.1, not exact.
  std::vector<CallgrindDump> d{
      {"send", 8, 10, 790, {}}, {"send", 8, 20, 1540, {}}, {"put", 8, 10, 790, {}}, {"put", 8, 20, 1541, {}}};
  auto c = instructions_per_operation(d);
  ASSERT_EQ(c.size(), 2u);
  EXPECT_EQ(c[0].op, "send");
  EXPECT_EQ(c[0].per_op, 75.0);
  EXPECT_TRUE(c[0].exact);
  EXPECT_DOUBLE_EQ(c[1].per_op, 75.1);
  EXPECT_FALSE(c[1].exact);
  d.pop_back();
  EXPECT_THROW(instructions_per_operation(d), Error);
}

InstructionBaseline baseline_of(double send, double put) {
  InstructionBaseline b;
  b.operations = {{"send", 8, 10, 0, 0, send, true}, {"put", 8, 10, 0, 0, put, true}};
  return b;
}

TEST(GateInstructions, ToleranceBuildAndStability) {
  const auto base = baseline_of(200, 100);
  // 1 %: 202 is within (200 * 1.01 = 202), 102 is not (100 * 1.01 = 101).
  std::vector<InstructionCount> now{
      {"send", 8, 10, 0, 0, 202, true}, {"put", 8, 10, 0, 0, 102, true}, {"get", 8, 10, 0, 0, 50, true}};
  auto v = judge_instructions(now, base, 0.01, true, true, "");
  EXPECT_EQ(v[0].verdict, Verdict::pass);
  EXPECT_EQ(v[1].verdict, Verdict::regression);
  EXPECT_EQ(v[2].verdict, Verdict::missing);
  // Zero tolerance still needs one whole instruction more.
  EXPECT_EQ(judge_instructions({{"put", 8, 10, 0, 0, 100.5, false}}, base, 0, true, true, "")[0].verdict,
            Verdict::pass);
  EXPECT_EQ(judge_instructions(now, base, 0.01, false, true, "valgrind")[1].verdict, Verdict::rerecord);
  EXPECT_EQ(judge_instructions(now, base, 0.01, true, false, "")[1].verdict, Verdict::unstable);
}

// An operation of the baseline that was not measured is a row of its own, `missing`, not a pass
// by omission.
TEST(GateInstructions, BaselineOperationNotMeasuredIsMissing) {
  const auto base = baseline_of(200, 100);
  auto v = judge_instructions({{"send", 8, 10, 0, 0, 200, true}}, base, 0, true, true, "");
  ASSERT_EQ(v.size(), 2u);
  EXPECT_EQ(v[0].verdict, Verdict::pass);
  EXPECT_EQ(v[1].op, "put");
  EXPECT_EQ(v[1].verdict, Verdict::missing);
  EXPECT_FALSE(v[1].now);
}

TEST(GateTiming, BaselineCellNotMeasuredIsMissing) {
  TimingBaseline base;
  for (const char* op : {"send", "put"}) base.cells.push_back({op, 2, 8, 10, 400, 100, 10});
  auto v = judge_timing({{"send", 2, 8, 10, 400, 100, 10}}, base, TimingMargin{}, 0.05);
  ASSERT_EQ(v.size(), 2u);
  EXPECT_EQ(v[1].op, "put");
  EXPECT_EQ(v[1].verdict, Verdict::missing);
}

// Exit codes (docs/gate.md): a regression wins; rows not judged fail with their own code unless
// accepted; nothing judged is never 0.
TEST(GateExitCode, EachVerdictItsOwnCode) {
  auto report_of = [](std::vector<Verdict> instructions, std::vector<std::pair<Verdict, bool>> timing) {
    GateReport r;
    for (auto v : instructions) r.instructions.push_back({"send", 8, 1.0, 1.0, v, ""});
    for (auto [v, confirmed] : timing) {
      TimingVerdict t;
      t.verdict = v;
      t.confirmed = confirmed;
      r.timing.push_back(t);
    }
    return r;
  };
  EXPECT_EQ(gate_exit_code(report_of({Verdict::pass}, {{Verdict::pass, false}}), {}), 0);
  EXPECT_EQ(gate_exit_code(report_of({Verdict::pass}, {{Verdict::inconclusive, false}}), {}), 0);
  EXPECT_EQ(gate_exit_code(report_of({Verdict::regression}, {}), {}), 3);
  EXPECT_EQ(gate_exit_code(report_of({}, {{Verdict::regression, true}}), {}), 4);
  EXPECT_EQ(gate_exit_code(report_of({}, {{Verdict::regression, false}}), {}), 0);  // not confirmed
  EXPECT_EQ(gate_exit_code(report_of({Verdict::regression}, {{Verdict::regression, true}}), {}), 5);
  EXPECT_EQ(gate_exit_code(report_of({Verdict::pass}, {{Verdict::rerecord, false}}), {}), 6);
  EXPECT_EQ(gate_exit_code(report_of({Verdict::missing, Verdict::pass}, {}), {}), 7);
  EXPECT_EQ(gate_exit_code(report_of({Verdict::unstable}, {}), {}), 8);
  EXPECT_EQ(gate_exit_code(report_of({}, {}), {}), 7);  // nothing measured at all
  // A regression is reported even next to rows that could not be judged.
  EXPECT_EQ(gate_exit_code(report_of({Verdict::regression, Verdict::missing}, {{Verdict::rerecord, false}}), {}), 3);
  // Accepted explicitly: only what is named.
  EXPECT_EQ(gate_exit_code(report_of({Verdict::rerecord}, {}), {Verdict::rerecord}), 0);
  EXPECT_EQ(gate_exit_code(report_of({Verdict::rerecord, Verdict::missing}, {}), {Verdict::rerecord}), 7);
  EXPECT_EQ(gate_exit_code(report_of({Verdict::unstable}, {}), {Verdict::missing, Verdict::rerecord}), 8);
  EXPECT_EQ(gate_exit_code(report_of({Verdict::unstable}, {}), {Verdict::unstable}), 0);
}

// Baseline: overhead 100 ns, sd 10, 10 pairs, off time 400 ns: margin max(50, 5 % of 400) = 50.
// Three cells are tested, so each simultaneous bound is at 1 - 0.05 / 3.
//  - "send" now 300 ns sd 10: regression 200, SE = sqrt(10 + 10) = 4.472, far above 50: Holm rejects.
//  - "put" now 105 sd 10: regression 5, upper bound 5 + t(0.98333, 18) x 4.472 < 50: pass, with
//    t(0.98333, 18) = 2.3043494 (bisection on the numerically integrated Student density).
//  - "get" now 140 sd 100: regression 40, SE = sqrt(1000 + 10) = 31.78, Welch df = 1010^2 /
//    (1000^2/9 + 10^2/9) ~ 9.18; t = (40 - 50) / 31.78 < 0, p > 0.5: not rejected; upper bound
//    ~ 40 + 2.7 x 31.78 > 50: inconclusive.
TEST(GateTiming, RegressionPassInconclusiveMissing) {
  TimingBaseline base;
  for (const char* op : {"send", "put", "get"}) base.cells.push_back({op, 2, 8, 10, 400, 100, 10});
  std::vector<TimingCell> now{{"send", 2, 8, 10, 400, 300, 10},
                              {"put", 2, 8, 10, 400, 105, 10},
                              {"get", 2, 8, 10, 400, 140, 100},
                              {"bcast", 2, 8, 10, 400, 100, 10}};
  auto v = judge_timing(now, base, TimingMargin{}, 0.05);
  ASSERT_EQ(v.size(), 4u);
  EXPECT_EQ(v[0].verdict, Verdict::regression);
  EXPECT_DOUBLE_EQ(v[0].regression_ns, 200);
  EXPECT_DOUBLE_EQ(v[0].margin_ns, 50);
  ASSERT_TRUE(v[0].low_ns);
  EXPECT_GT(*v[0].low_ns, 50);
  EXPECT_EQ(v[1].verdict, Verdict::pass);
  EXPECT_NEAR(*v[1].high_ns, 5 + 2.3043494 * std::sqrt(20.0), 1e-5);
  EXPECT_EQ(v[2].verdict, Verdict::inconclusive);
  EXPECT_GT(*v[2].p, 0.5);
  EXPECT_EQ(v[3].verdict, Verdict::missing);
  // Another machine: nothing is judged.
  for (const auto& r : judge_timing(now, base, TimingMargin{}, 0.05, false)) EXPECT_EQ(r.verdict, Verdict::rerecord);
  // A relative margin: 5 % of an off time of 4000 ns is 200 ns, so a 200 ns regression cannot
  // exceed it.
  for (auto& c : base.cells) c.off_ns = 4000;
  EXPECT_NE(judge_timing(now, base, TimingMargin{}, 0.05)[0].verdict, Verdict::regression);
}

TEST(GateBaseline, WrittenAndReadBack) {
  GateBaseline b;
  b.provenance = {{"open_mpi", "mpirun (Open MPI) 4.1.4"}, {"note", "quote \" and backslash \\"}};
  b.instructions = baseline_of(183, 93);
  b.instructions->build = {{"valgrind", "valgrind-3.19.0"}};
  b.timing = TimingBaseline{{{"cpus", "2"}}, {{"pairs", "8"}}, {{"send", 2, 8, 8, 1234.5, 56.25, 7.5}}};
  test::TempDir dir;
  std::ostringstream text;
  write_gate_baseline(b, text);
  auto r = read_gate_baseline(dir.write("b.json", text.str()));
  EXPECT_EQ(r.provenance, b.provenance);
  ASSERT_TRUE(r.instructions);
  EXPECT_EQ(r.instructions->build, b.instructions->build);
  EXPECT_EQ(r.instructions->operations[1].per_op, 93);
  ASSERT_TRUE(r.timing);
  EXPECT_EQ(r.timing->cells[0].off_ns, 1234.5);
  EXPECT_EQ(r.timing->cells[0].sd_difference_ns, 7.5);
}

TEST(GateBaseline, BadFilesNamed) {
  test::TempDir dir;
  const std::string truncated = dir.write("t.json", "{\n \"format\": \"mpimon-gate-baseline\",\n \"x\": [");
  try {
    read_gate_baseline(truncated);
    FAIL() << "accepted";
  } catch (const Error& e) {
    EXPECT_EQ(std::string(e.what()).rfind(truncated + ":3:", 0), 0u) << e.what();
  }
  const std::string other = dir.write("o.json", "{\"format\": \"x\"}");
  EXPECT_THROW(read_gate_baseline(other), Error);
  const std::string version = dir.write("v.json", "{\"format\": \"mpimon-gate-baseline\", \"format_version\": 2}");
  EXPECT_THROW(read_gate_baseline(version), Error);
}

TEST(GateReport, JunitCountsFailuresAndSkips) {
  GateReport r;
  r.instructions = {{"send", 8, 100.0, 120.0, Verdict::regression, "+20 <x>"},
                    {"put", 8, 90.0, 90.0, Verdict::pass, ""}};
  TimingVerdict t;
  t.op = "bcast";
  t.verdict = Verdict::inconclusive;
  t.note = "interval too wide";
  r.timing = {t};
  std::ostringstream out;
  write_gate_junit(r, out);
  const std::string x = out.str();
  EXPECT_NE(x.find("tests=\"2\" failures=\"1\" errors=\"0\" skipped=\"0\""), std::string::npos) << x;
  EXPECT_NE(x.find("tests=\"1\" failures=\"0\" errors=\"0\" skipped=\"1\""), std::string::npos) << x;
  EXPECT_NE(x.find("message=\"+20 &lt;x&gt;\""), std::string::npos) << x;
  EXPECT_NE(x.find("<skipped message=\"inconclusive: interval too wide\"/>"), std::string::npos) << x;
}

// The gate for applications on hand-computed intervals (off 10 s in every pair, t_{0.975,3} = 3.182446):
//   above:        on 12.9, 13.0, 13.1, 13.0: d mean 3, sd 0.0816497, CI 3 +- 0.12992: [+28.70 %, +31.30 %]
//   pass:         on 10.1, 10.1, 10.2, 10.0: d mean 0.1, sd 0.0816497: [-0.30 %, +2.30 %]
//   inconclusive: on 8, 13, 9, 14: d mean 1, sd 2.94392, CI 1 +- 4.6845: [-36.8 %, +56.8 %]
AppRow app_row(const std::string& name, const std::vector<double>& on) {
  AppRow r;
  r.app = name;
  r.np = 2;
  const std::vector<double> off(on.size(), 10.0);
  r.analysis = paired_analysis(off, on);
  return r;
}

TEST(AppGate, VerdictsAndExitCodes) {
  const AppRow above = app_row("above", {12.9, 13.0, 13.1, 13.0});
  const AppRow pass = app_row("pass", {10.1, 10.1, 10.2, 10.0});
  const AppRow open = app_row("open", {8, 13, 9, 14});
  const AppGateReport report = judge_app_overhead({above, pass, open}, 0.10, false);
  ASSERT_EQ(report.rows.size(), 3u);
  EXPECT_EQ(report.rows[0].verdict, Verdict::regression);
  EXPECT_EQ(report.rows[0].cost, CostVerdict::above);
  EXPECT_NEAR(*report.rows[0].low, 0.287008, 5e-6);
  EXPECT_NEAR(*report.rows[0].high, 0.312992, 5e-6);
  EXPECT_EQ(report.rows[1].verdict, Verdict::pass);
  EXPECT_NEAR(*report.rows[1].low, -0.0029923, 5e-7);
  EXPECT_NEAR(*report.rows[1].high, 0.0229923, 5e-7);
  EXPECT_EQ(report.rows[2].verdict, Verdict::inconclusive);
  EXPECT_EQ(report.exit_code, kExitAppGateAbove);  // above wins over inconclusive
  EXPECT_EQ(judge_app_overhead({pass}, 0.10, false).exit_code, 0);
  EXPECT_EQ(judge_app_overhead({pass, open}, 0.10, false).exit_code, kExitAppGateInconclusive);
  EXPECT_EQ(judge_app_overhead({pass, open}, 0.10, true).exit_code, 0);
  // A 2 % limit: the pass row's interval [-0.3 %, +2.3 %] reaches it without excluding 0.
  EXPECT_EQ(judge_app_overhead({pass}, 0.02, false).rows[0].cost, CostVerdict::inconclusive);
  // A limit of 20 %: the above row's cost is established and over it; a 30 % limit falls inside
  // its interval: a cost that may exceed the limit fails too.
  EXPECT_EQ(judge_app_overhead({above}, 0.30, false).rows[0].cost, CostVerdict::nonzero);
  EXPECT_EQ(judge_app_overhead({above}, 0.30, false).exit_code, kExitAppGateAbove);
}

TEST(AppGate, Reports) {
  const AppGateReport report =
      judge_app_overhead({app_row("above", {12.9, 13.0, 13.1, 13.0}), app_row("open", {8, 13, 9, 14})}, 0.10, false);
  std::ostringstream json, junit;
  write_app_gate_json(report, json);
  write_app_gate_junit(report, junit);
  EXPECT_NE(json.str().find("\"format\": \"mpimon-app-gate-report\""), std::string::npos);
  EXPECT_NE(json.str().find("\"exit_code\": 6"), std::string::npos);
  EXPECT_NE(json.str().find("\"verdict\": \"above\""), std::string::npos);
  EXPECT_NE(json.str().find("\"verdict\": \"inconclusive\""), std::string::npos);
  // Both fail the JUnit suite: the gate exits non-zero for each.
  EXPECT_NE(junit.str().find("tests=\"2\" failures=\"2\" errors=\"0\" skipped=\"0\""), std::string::npos);
  std::ostringstream allowed;
  write_app_gate_junit(judge_app_overhead({app_row("open", {8, 13, 9, 14})}, 0.10, true), allowed);
  EXPECT_NE(allowed.str().find("failures=\"0\" errors=\"0\" skipped=\"1\""), std::string::npos);
}

}  // namespace
}  // namespace mpimon
