// Unit tests of the gate's decision flow (gate_run.hpp): option checks, --accept, the probe's
// MPMD line, build comparison, the confirmation of regressions. Expected values are written from
// docs/gate.md, not printed by the code.

#include "mpimon/harness/gate_run.hpp"

#include <gtest/gtest.h>

#include "harness_test_util.hpp"

namespace mpimon::harness {
namespace {

using test::error_of;

TimingVerdict verdict(const std::string& op, std::uint64_t size, mpimon::Verdict v, double regression = 0) {
  TimingVerdict t;
  t.op = op;
  t.np = 2;
  t.size = size;
  t.verdict = v;
  t.regression_ns = regression;
  t.low_ns = regression / 2;
  return t;
}

TEST(GateRun, AcceptTakesTheThreeUnjudgedVerdicts) {
  EXPECT_EQ(accepted_verdicts(""), std::set<mpimon::Verdict>{});
  EXPECT_EQ(accepted_verdicts("missing,rerecord"),
            (std::set<mpimon::Verdict>{mpimon::Verdict::missing, mpimon::Verdict::rerecord}));
  EXPECT_EQ(accepted_verdicts("unstable"), std::set<mpimon::Verdict>{mpimon::Verdict::unstable});
  EXPECT_EQ(error_of([] { accepted_verdicts("missing,regression"); }),
            "--accept takes a comma-separated list of rerecord, missing and unstable, not 'regression'");
}

TEST(GateRun, SettingsAreCheckedWithTheOptionNamed) {
  GateSettings g;
  g.sweep.pairs = 8;
  EXPECT_EQ(error_of([&] { check_gate_settings(g); }), "");
  GateSettings bad = g;
  bad.measure = "cycles";
  EXPECT_EQ(error_of([&] { check_gate_settings(bad); }), "--measure takes instructions, timing or both, not 'cycles'");
  bad = g;
  bad.mca = {"=1"};
  EXPECT_EQ(error_of([&] { check_gate_settings(bad); }), "expected KEY=VALUE, not '=1'");
  bad = g;
  bad.size = 12;
  EXPECT_EQ(error_of([&] { check_gate_settings(bad); }), "--size must be a positive multiple of 8");
  bad = g;
  bad.sweep.pairs = 1;
  EXPECT_EQ(error_of([&] { check_gate_settings(bad); }), "--pairs must be at least 2");
  bad = g;
  bad.launcher = "srun";
  EXPECT_EQ(error_of([&] { check_gate_settings(bad); }),
            "--launcher: the gate needs Open MPI's mpirun (MPMD line, -x)");
  try {
    check_gate_settings(bad);
  } catch (const Error& e) {
    EXPECT_EQ(e.kind(), Error::Kind::usage);
  }
}

TEST(GateRun, AdviceOnlyForTheUnjudgedExitCodes) {
  for (int code : {6, 7, 8}) EXPECT_FALSE(advice_for(code).empty()) << code;
  for (int code : {0, 3, 4, 5}) EXPECT_EQ(advice_for(code), "") << code;
  EXPECT_NE(advice_for(6).find("--update-baseline"), std::string::npos);
}

TEST(GateRun, ProbeRunsRankZeroUnderCallgrindAndRankOneNatively) {
  GateSettings g;
  g.probe = "/p/probe";
  g.valgrind = "vg";
  g.probe_ops = "send";
  g.count = 10;
  g.size = 16;
  g.mca = {"btl=self,vader"};
  const auto argv = probe_launch(g, "/w/cg.out").argv();
  const std::vector<std::string> expected{"mpirun",
                                          "-np",
                                          "1",
                                          "--mca",
                                          "pml_monitoring_enable",
                                          "1",
                                          "--mca",
                                          "btl",
                                          "self,vader",
                                          "vg",
                                          "--tool=callgrind",
                                          "--collect-atstart=no",
                                          "--compress-strings=no",
                                          "--compress-pos=no",
                                          "--callgrind-out-file=/w/cg.out",
                                          "/p/probe",
                                          "--ops",
                                          "send",
                                          "--count",
                                          "10",
                                          "--size",
                                          "16",
                                          ":",
                                          "-np",
                                          "1",
                                          "/p/probe",
                                          "--ops",
                                          "send",
                                          "--count",
                                          "10",
                                          "--size",
                                          "16"};
  EXPECT_EQ(argv, expected);
}

TEST(GateRun, BuildDifferencesNameEachKey) {
  const std::map<std::string, std::string> then{{"open_mpi", "4.1.4"}, {"valgrind", "3.19"}};
  EXPECT_EQ(build_differences(then, then), "");
  EXPECT_EQ(build_differences(then, {{"open_mpi", "4.1.5"}, {"valgrind", "3.19"}, {"libraries", "x"}}),
            "libraries '?' now 'x'; open_mpi '4.1.4' now '4.1.5'");
}

TEST(GateRun, ARegressionStaysOneOnlyWhenTheSecondRunFindsIt) {
  std::vector<TimingVerdict> first{verdict("send", 8, mpimon::Verdict::regression, 100),
                                   verdict("bcast", 8, mpimon::Verdict::regression, 90),
                                   verdict("put", 8, mpimon::Verdict::pass)};
  apply_confirmation(first,
                     {verdict("send", 8, mpimon::Verdict::regression, 80), verdict("bcast", 8, mpimon::Verdict::pass)});
  EXPECT_EQ(first[0].verdict, mpimon::Verdict::regression);
  EXPECT_TRUE(first[0].confirmed);
  EXPECT_EQ(first[0].note, "confirmed by a second run (regression 80.0 ns, low bound 40.0)");
  EXPECT_EQ(first[1].verdict, mpimon::Verdict::inconclusive);
  EXPECT_FALSE(first[1].confirmed);
  EXPECT_EQ(first[1].note, "not confirmed by a second run");
  EXPECT_EQ(first[2].verdict, mpimon::Verdict::pass);
}

TEST(GateRun, ConfirmationReRunsTheRegressedOperationsAndSizesWithAnotherSeed) {
  Sweep s;
  s.ops = "send,bcast,put";
  s.sizes = "8,65536";
  s.h.seed = 7;
  EXPECT_FALSE(confirmation_sweep(s, {verdict("send", 8, mpimon::Verdict::pass)}));
  const auto again = confirmation_sweep(
      s, {verdict("send", 65536, mpimon::Verdict::regression), verdict("bcast", 8, mpimon::Verdict::regression),
          verdict("put", 8, mpimon::Verdict::inconclusive)});
  ASSERT_TRUE(again);
  EXPECT_EQ(again->ops, "bcast,send");
  EXPECT_EQ(again->sizes, "8,65536");
  EXPECT_EQ(again->h.seed, 8U);
}

}  // namespace
}  // namespace mpimon::harness
