// The verdicts of pinned defects, driven with crafted reports and ledgers (no mpirun), and the
// defect table against the validation cases and docs/defects.md.

#include <gtest/gtest.h>
#include <unistd.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <map>
#include <regex>
#include <set>
#include <sstream>
#include <stdexcept>
#include <tuple>

#include "mpimon/base/error.hpp"
#include "mpimon/base/scratch.hpp"
#include "mpimon/checks/ledger_check.hpp"
#include "mpimon/checks/recorded_facts.hpp"
#include "mpimon/harness/validation_suite.hpp"
#include "mpimon/matrices/merge.hpp"

namespace mpimon::harness {
namespace {

const std::vector<std::string> kDefectLine = {"coll 1->0 count: recorded 1, sent 0"};
const std::vector<std::string> kOtherLine = {"communicator mpimon_coll rank 2 A2O bytes: recorded 8, expected 0"};

TEST(PinnedVerdict, EqualToTheModelIsTheDefectPresent) {
  const KnownDefect d = known_defect("all-to-one-recorded-by-root");
  Verdict v = judge_pinned(d, true, "4.1", kDefectLine, {});
  EXPECT_EQ(v.outcome, Outcome::defect_present);
  EXPECT_TRUE(outcome_expected(v.outcome));
}

TEST(PinnedVerdict, EqualToTheIdealIsDefectFixedAndFails) {
  const KnownDefect d = known_defect("all-to-one-recorded-by-root");
  Verdict v = judge_pinned(d, true, "4.1", {}, kDefectLine);
  EXPECT_EQ(v.outcome, Outcome::defect_fixed);
  EXPECT_FALSE(outcome_expected(v.outcome));
  EXPECT_NE(v.summary.find("DEFECT FIXED"), std::string::npos);
}

TEST(PinnedVerdict, TheDefectPlusAnotherDifferenceFailsWithTheWholeDifference) {
  const KnownDefect d = known_defect("all-to-one-recorded-by-root");
  std::vector<std::string> ideal = kDefectLine;
  ideal.push_back(kOtherLine[0]);
  Verdict v = judge_pinned(d, true, "4.1", ideal, kOtherLine);
  EXPECT_EQ(v.outcome, Outcome::fails);
  EXPECT_EQ(v.details.size(), 3u);  // one against the model, two against the ideal
  EXPECT_NE(v.details[0].find(kOtherLine[0]), std::string::npos);
}

// Excerpts of real outputs: Open MPI 4.1.4's own signal handler and 5.0.7's (through UCX).
const std::string kDistGraphCrash41 =
    "[vm:15750] Signal: Segmentation fault (11)\n[vm:15750] Failing at address: (nil)\n"
    "[vm:15750] [ 1] mca_coll_monitoring.so(mca_coll_monitoring_neighbor_alltoall+0x98)[0x7fcc07612a68]\n";
const std::string kDistGraphCrash50 =
    "[vm:4124 :0:4124] Caught signal 11 (Segmentation fault: address not mapped to object at address (nil))\n"
    " 4  /lib/x86_64-linux-gnu/libmpi.so.40(mca_coll_monitoring_neighbor_alltoall+0xa0) [0x7eff41b2b9e0]\n";
const std::string kErrArg50 =
    "*** An error occurred in MPI_Neighbor_alltoall\n*** MPI_ERR_ARG: invalid argument of some other kind\n";
const std::string kCacheNameCrash =
    "Caught signal 11 (Segmentation fault: address not mapped to object at address 0x18)\n"
    " 5  libmpi.so.40(mca_common_monitoring_coll_cache_name+0x2f)\n 6  libmpi.so.40(mca_pml_monitoring_del_comm+0xd)\n";

TEST(CrashModel, TheModelledCrashOnEitherSeriesMatches) {
  const KnownDefect d = known_defect("distgraph-neighbor-crash");
  EXPECT_TRUE(differences_from_failure(d, kDistGraphCrash41, "").empty());
  EXPECT_TRUE(differences_from_failure(d, kDistGraphCrash50, kErrArg50).empty());
  EXPECT_TRUE(differences_from_failure(known_defect("coll-list-crash"), kCacheNameCrash, "").empty());
}

TEST(CrashModel, AFailureWithoutTheCrashOrACrashElsewhereIsNotTheDefect) {
  const KnownDefect d = known_defect("distgraph-neighbor-crash");
  // 5.0.7's MPI_ERR_ARG ended the job first: the same failure as the run without monitoring.
  const auto no_crash = differences_from_failure(d, kErrArg50, kErrArg50);
  ASSERT_FALSE(no_crash.empty());
  EXPECT_EQ(no_crash.front(), "no segmentation fault");
  // Another segmentation fault (the freed-communicator one) is not this defect.
  const auto other = differences_from_failure(d, kCacheNameCrash, "");
  ASSERT_EQ(other.size(), 2U);
  EXPECT_NE(other[0].find("mca_coll_monitoring_neighbor_alltoall"), std::string::npos);
  // Crashing without monitoring too is the MPI library's, not the monitoring's.
  EXPECT_FALSE(differences_from_failure(d, kDistGraphCrash41, kDistGraphCrash41).empty());
}

// Open MPI 5.0.7 without monitoring (1000 runs on the loaded host): its own refusals of the
// dist-graph call (MPI_ERR_ARG, or MPI_ERR_INTERN in about a third of the runs), its own crash at
// NULL in coll/basic (2 runs: the test command's "crashes too"), a rank killed (signal 9, 2 runs:
// no answer about the defect).
const std::string kErrIntern50 =
    "[vm:00000] *** An error occurred in MPI_Neighbor_alltoall\n[vm:00000] *** reported by process [2921005057,2]\n"
    "[vm:00000] *** on communicator mpimon_graph\n[vm:00000] *** MPI_ERR_INTERN: internal error\n";
const std::string kErrArgOnGraph50 =
    "[vm:00000] *** An error occurred in MPI_Neighbor_alltoall\n[vm:00000] *** reported by process [1991311361,1]\n"
    "[vm:00000] *** on communicator mpimon_graph\n[vm:00000] *** MPI_ERR_ARG: invalid argument of some other kind\n";
const std::string kRankKilled50 =
    "prterun noticed that process rank 1 with PID 25372 on node vm exited on\nsignal 9 (Killed).\n";
const std::string kCrashElsewhere50 =
    "[vm:10989:0:10989] Caught signal 11 (Segmentation fault: address not mapped to object at address (nil))\n"
    " 4  /lib/x86_64-linux-gnu/libmpi.so.40(mca_coll_basic_neighbor_alltoall+0x343) [0x7fbed6f71763]\n"
    " 5  /lib/x86_64-linux-gnu/libmpi.so.40(MPI_Neighbor_alltoall+0x10d) [0x7fbed6ecabad]\n"
    "prterun noticed that process rank 2 with PID 10989 on node vm exited on\nsignal 11 (Segmentation fault).\n";

TEST(CrashModel, AControlRunCrashingElsewhereIsNotTheDefectsCrash) {
  const KnownDefect d = known_defect("distgraph-neighbor-crash");
  // Was "the run without monitoring crashes too": any segmentation fault without monitoring.
  EXPECT_TRUE(differences_from_failure(d, kDistGraphCrash50, kCrashElsewhere50).empty());
  EXPECT_TRUE(differences_from_failure(d, kDistGraphCrash50, kErrIntern50).empty());
  const auto same = differences_from_failure(d, kDistGraphCrash50, kDistGraphCrash50);
  ASSERT_EQ(same.size(), 1U);
  EXPECT_EQ(same.front(), "the run without monitoring crashes the same way");
}

TEST(CrashModel, TheRunWithoutMonitoringAnswersByItsSignature) {
  const KnownDefect d = known_defect("distgraph-neighbor-crash");
  EXPECT_EQ(unmonitored_answer(d, "4.1", ""), UnmonitoredAnswer::ends);
  EXPECT_EQ(unmonitored_answer(d, "5.0", kErrArgOnGraph50), UnmonitoredAnswer::refuses_as_recorded);
  EXPECT_EQ(unmonitored_answer(d, "5.0", kErrIntern50), UnmonitoredAnswer::refuses_as_recorded);
  // Recorded for 5.0 only: the same refusal on 4.1 is no answer, nor on another communicator.
  EXPECT_EQ(unmonitored_answer(d, "4.1", kErrArgOnGraph50), UnmonitoredAnswer::none);
  EXPECT_EQ(unmonitored_answer(d, "5.0", kErrArg50), UnmonitoredAnswer::none);
  EXPECT_EQ(unmonitored_answer(d, "5.0", kDistGraphCrash50), UnmonitoredAnswer::fails_as_the_defect);
  EXPECT_EQ(unmonitored_answer(d, "5.0", kCrashElsewhere50), UnmonitoredAnswer::crashes_elsewhere);
  EXPECT_EQ(unmonitored_answer(d, "5.0", kErrArgOnGraph50 + kCrashElsewhere50), UnmonitoredAnswer::crashes_elsewhere);
  EXPECT_EQ(unmonitored_answer(d, "5.0", kRankKilled50), UnmonitoredAnswer::none);
  EXPECT_EQ(unmonitored_answer(d, "5.0", "killed after 120 s\n"), UnmonitoredAnswer::none);
  // A refused window: its own expected lines are the defect's failure.
  const KnownDefect w = known_defect("one-process-window-refused");
  EXPECT_EQ(unmonitored_answer(w, "4.1", "MPI_Win_create ... MPI_ERR_WIN: invalid window"),
            UnmonitoredAnswer::fails_as_the_defect);
  EXPECT_STREQ(answer_name(UnmonitoredAnswer::none), "no answer");
}

TEST(CrashModel, AMonitoredRunTheRefusalEndedFirstSaysNothing) {
  const KnownDefect d = known_defect("distgraph-neighbor-crash");
  EXPECT_TRUE(refused_before_the_crash(d, "5.0", kErrArgOnGraph50));
  EXPECT_FALSE(refused_before_the_crash(d, "5.0", kErrArgOnGraph50 + kDistGraphCrash50));
  EXPECT_FALSE(refused_before_the_crash(d, "4.1", kErrArgOnGraph50));
  EXPECT_FALSE(refused_before_the_crash(d, "5.0", ""));
}

TEST(CrashModel, UndecidedIsNamedAndNeitherAPassNorAFailure) {
  const Verdict v = judge_undecided(known_defect("distgraph-neighbor-crash"), "why", {"output"});
  EXPECT_EQ(v.outcome, Outcome::undecided);
  EXPECT_STREQ(outcome_name(v.outcome), "not decided");
  EXPECT_EQ(v.summary.rfind("not decided: distgraph-neighbor-crash (", 0), 0U);
  EXPECT_TRUE(outcome_expected(v.outcome));
  EXPECT_TRUE(outcome_unchecked(v.outcome));
}

// run_case on the pinned dist-graph case with a launcher that plays each run's output from a plan:
// per kind of run (the control run of the set-up, with --control, ends well; "unmonitored": the
// --mca ... ^monitoring runs; "monitored": the others), line K of KIND.plan names the output file
// and the exit code of the K-th run (the last line repeats). Counts the runs of each kind.
class PinnedRuns : public ::testing::Test {
 protected:
  ScratchDirectory scratch{"pinned-runs"};
  std::filesystem::path dir = scratch.path();

  void SetUp() override {
    for (const auto& [name, text] : std::map<std::string, std::string>{{"defect", kDistGraphCrash50},
                                                                       {"refusal", kErrArgOnGraph50},
                                                                       {"intern", kErrIntern50},
                                                                       {"elsewhere", kCrashElsewhere50},
                                                                       {"killed", kRankKilled50}}) {
      std::ofstream(dir / name) << text;
    }
    std::ofstream(dir / "mpirun")
        << "#!/bin/bash\nd='" << dir.string()
        << "'\ncase \"$*\" in *--control*) exit 0 ;; *'^monitoring'*) kind=unmonitored ;; "
           "*) kind=monitored ;; esac\n"
           "n=$(( $(cat \"$d/$kind.count\" 2>/dev/null || echo 0) + 1 )); echo $n >\"$d/$kind.count\"\n"
           "line=$(sed -n \"${n}p\" \"$d/$kind.plan\"); [ -n \"$line\" ] || line=$(tail -n 1 "
           "\"$d/$kind.plan\")\nset -- $line; cat \"$d/$1\"; exit $2\n";
    std::filesystem::permissions(dir / "mpirun", std::filesystem::perms::owner_all);
  }
  void plan(const std::string& kind, const std::string& lines) { std::ofstream(dir / (kind + ".plan")) << lines; }
  int runs(const std::string& kind) {
    std::ifstream in(dir / (kind + ".count"));
    int n = 0;
    in >> n;
    return n;
  }
  CaseResult run() {
    const auto& cases = validation_cases();
    const auto c = std::find_if(cases.begin(), cases.end(),
                                [](const ValidationCase& v) { return v.name == "coll.distgraph_neighbor_alltoall"; });
    SuiteOptions options;
    options.launcher = (dir / "mpirun").string();
    options.programs_dir = dir.string();
    options.work_dir = (dir / "work").string();
    options.mpi_series = "5.0";
    return run_case(*c, 4, 2, options);
  }
};

TEST_F(PinnedRuns, ARunWithoutMonitoringThatCrashedElsewhereIsAnAnswer) {
  // The test command's failure (issue 43): "the run without monitoring crashes too" (coll/basic's).
  plan("unmonitored", "elsewhere 139\n");
  plan("monitored", "refusal 13\ndefect 139\n");
  const CaseResult r = run();
  EXPECT_EQ(r.outcome, Outcome::defect_present) << r.summary;
  EXPECT_EQ(runs("unmonitored"), 1);
  EXPECT_EQ(runs("monitored"), 2);
}

TEST_F(PinnedRuns, ARunWithoutMonitoringThatGaveNoAnswerIsRunAgain) {
  plan("unmonitored", "killed 137\nkilled 137\nintern 17\n");
  plan("monitored", "defect 139\n");
  const CaseResult r = run();
  EXPECT_EQ(r.outcome, Outcome::defect_present) << r.summary;
  EXPECT_EQ(runs("unmonitored"), 3);
  EXPECT_EQ(runs("monitored"), 1);
}

TEST_F(PinnedRuns, NoAnswerWithoutMonitoringInFiveRunsIsNotDecided) {
  plan("unmonitored", "killed 137\n");
  plan("monitored", "defect 139\n");
  const CaseResult r = run();
  EXPECT_EQ(r.outcome, Outcome::undecided) << r.summary;
  EXPECT_NE(r.summary.find("the run without monitoring gave no answer in 5 runs"), std::string::npos) << r.summary;
  EXPECT_EQ(runs("unmonitored"), 5);
  EXPECT_EQ(runs("monitored"), 0);
}

TEST_F(PinnedRuns, TheRefusalEndingEveryMonitoredRunFirstIsNotDecided) {
  plan("unmonitored", "refusal 13\n");
  plan("monitored", "refusal 13\n");
  const CaseResult r = run();
  EXPECT_EQ(r.outcome, Outcome::undecided) << r.summary;
  EXPECT_NE(r.summary.find("ended all 5 runs with monitoring before any crash"), std::string::npos) << r.summary;
  EXPECT_EQ(runs("monitored"), 5);
}

TEST_F(PinnedRuns, AnotherCrashWithMonitoringStillFails) {
  // Not the library's refusal: a crash elsewhere in every monitored run is an answer, not the model.
  plan("unmonitored", "refusal 13\n");
  plan("monitored", "refusal 13\nelsewhere 139\n");
  const CaseResult r = run();
  EXPECT_EQ(r.outcome, Outcome::fails) << r.summary;
  EXPECT_EQ(runs("monitored"), 5);
}

TEST_F(PinnedRuns, TheDefectsCrashWithoutMonitoringFails) {
  plan("unmonitored", "defect 139\n");
  plan("monitored", "defect 139\n");
  const CaseResult r = run();
  EXPECT_EQ(r.outcome, Outcome::fails) << r.summary;
  EXPECT_NE(r.summary.find("the run without monitoring crashes the same way"), std::string::npos) << r.summary;
  EXPECT_EQ(runs("unmonitored"), 1);
}

TEST(CrashModel, TheVerdictOfAMissingCrashIsAFailureNotAPass) {
  const KnownDefect d = known_defect("distgraph-neighbor-crash");
  const Verdict v =
      judge_pinned(d, true, "5.0", {"the run failed: exit code 13"}, differences_from_failure(d, kErrArg50, kErrArg50));
  EXPECT_EQ(v.outcome, Outcome::fails);
}

// flush-after-comm-free: a use after free, whose two symptoms seen on Open MPI 5.0.7 are both the
// defect (a crash in the flush, or the freed record flushed again), and nothing else is.
const std::string kFlushCrash50 =
    "[vm:3312 :0:3312] Caught signal 11 (Segmentation fault: address not mapped to object at address 0x8)\n"
    " 3  libmpi.so.40(mca_common_monitoring_coll_flush+0x3c) [0x7f2c2a8e11fc]\n"
    " 4  libmpi.so.40(mca_common_monitoring_coll_flush_all+0x61) [0x7f2c2a8e1421]\n";
std::vector<std::string> freed_record_lines(int np) {
  std::vector<std::string> out;
  for (int r = 0; r < np; ++r) {
    out.push_back("phase 3: rank " + std::to_string(r) +
                  " flushed a record of communicator mpimon_dup whose members are not ranks: (null)");
  }
  return out;
}
// Both lines of every rank, as mpimon-mpit-ledger flush_free and the harness report them.
std::vector<std::string> survived_lines(int np) {
  std::vector<std::string> out = freed_record_lines(np);
  for (int r = 0; r < np; ++r) {
    out.push_back("MISMATCH rank " + std::to_string(r) + " phase 3: dump unreadable: run.phase_3." + std::to_string(r) +
                  ".prof:10: communicator member '(null)' is not a non-negative integer");
  }
  return out;
}

TEST(CrashOrReport, EitherSymptomIsTheDefect) {
  const KnownDefect d = known_defect("flush-after-comm-free");
  EXPECT_TRUE(differences_from_failure(d, kFlushCrash50, "").empty());
  const auto survived = survived_lines(2);
  EXPECT_EQ(judge_pinned(d, true, "5.0", survived, differences_from_expected_lines(d, survived, 2)).outcome,
            Outcome::defect_present);
}

TEST(CrashOrReport, AnythingElseIsNot) {
  const KnownDefect d = known_defect("flush-after-comm-free");
  // Another crash, or this one without monitoring too.
  EXPECT_FALSE(differences_from_failure(d, kCacheNameCrash, "").empty());
  EXPECT_FALSE(differences_from_failure(d, kFlushCrash50, kFlushCrash50).empty());
  // The freed record on one rank only, or without the program's own line, or with a phase that
  // differs from its ledger besides.
  auto one = survived_lines(2);
  one.erase(one.begin());  // rank 0's flushed record
  EXPECT_EQ(judge_pinned(d, true, "5.0", one, differences_from_expected_lines(d, one, 2)).outcome, Outcome::fails);
  one = freed_record_lines(2);
  EXPECT_EQ(judge_pinned(d, true, "5.0", one, differences_from_expected_lines(d, one, 2)).outcome, Outcome::fails);
  auto plus = survived_lines(2);
  plus.push_back("phase 2: p2p 0->1 count: recorded 3, sent 2");
  EXPECT_EQ(judge_pinned(d, true, "5.0", plus, differences_from_expected_lines(d, plus, 2)).outcome, Outcome::fails);
  // A clean run is the defect fixed.
  EXPECT_EQ(judge_pinned(d, true, "5.0", {}, differences_from_expected_lines(d, {}, 2)).outcome, Outcome::defect_fixed);
}

// The freed record is reported and left out; the rest of the dump is kept line for line.
TEST(CrashOrReport, UnrankedRecordsAreReportedAndDropped) {
  const ScratchDirectory scratch("unranked");
  const std::filesystem::path& dir = scratch.path();
  const std::string kept =
      "# POINT TO POINT\nE\t0\t1\t8 bytes\t1 msgs sent\n# OSC\n# COLLECTIVES\n"
      "D\tMPI_COMM_WORLD\tprocs: 0,1\nO2A\t0\t0 bytes\t0 msgs sent\nA2O\t0\t0 bytes\t0 msgs sent\n"
      "A2A\t0\t0 bytes\t0 msgs sent\n";
  const std::string freed =
      "D\tmpimon_dup\tprocs: (null)\nO2A\t0\t0 bytes\t0 msgs sent\n"
      "A2O\t0\t0 bytes\t0 msgs sent\nA2A\t0\t0 bytes\t0 msgs sent\n";
  const std::string file = (dir / "run.phase_3.0.prof").string();
  std::ofstream(file) << kept << freed << "D\tmpimon_split\tprocs: 0\nO2A\t0\t0 bytes\t0 msgs sent\n";
  std::vector<std::string> report;
  const std::string copy = without_unranked_records(file, dir / "readable", "phase 3: rank 0", report);
  ASSERT_NE(copy, file);
  std::ifstream in(copy);
  std::stringstream text;
  text << in.rdbuf();
  EXPECT_EQ(text.str(), kept + "D\tmpimon_split\tprocs: 0\nO2A\t0\t0 bytes\t0 msgs sent\n");
  EXPECT_EQ(report, freed_record_lines(1));
  // A dump without such a record is read as it is.
  std::ofstream(file) << kept;
  report.clear();
  EXPECT_EQ(without_unranked_records(file, dir / "readable", "phase 3: rank 0", report), file);
  EXPECT_TRUE(report.empty());
}

TEST(PinnedVerdict, WhereRecordedAbsentTheCaseMustBeExact) {
  const KnownDefect d = known_defect("pml-mpit-invalid-after-init");
  EXPECT_EQ(judge_pinned(d, false, "5.0", {}, {"missing"}).outcome, Outcome::holds);
  Verdict back = judge_pinned(d, false, "5.0", {"UNSUPPORTED pml_monitoring_flush"}, {});
  EXPECT_EQ(back.outcome, Outcome::fails);
  EXPECT_NE(back.summary.find("recorded as absent"), std::string::npos);
}

// The self-checking cases: the report must be exactly the defect's lines.
TEST(ExpectedLines, ExactReportAcceptsOnlyTheDefectsLines) {
  const KnownDefect d = known_defect("pml-mpit-invalid-after-init");
  const std::string unsupported = "UNSUPPORTED pml_monitoring_messages_count: MPI_T_ERR_INVALID_NAME after MPI_Init";
  EXPECT_TRUE(differences_from_expected_lines(d, {unsupported}).empty());
  EXPECT_EQ(differences_from_expected_lines(d, {}).size(), 1u);  // fixed: the line is missing
  auto extra = differences_from_expected_lines(d, {unsupported, "MISMATCH coll count: read 2, ledger 3"});
  ASSERT_EQ(extra.size(), 1u);
  EXPECT_EQ(extra[0], "unexpected: MISMATCH coll count: read 2, ledger 3");
}

// mpit.stop at 2 processes: every put of every rank is missing after the stop, one line each.
TEST(ExpectedLines, StoppingOneHandleMissesEveryPutOfEveryRank) {
  const KnownDefect d = known_defect("stopping-one-handle-stops-all");
  const auto line = [](int r, int p) {
    return "MISMATCH rank " + std::to_string(r) + " osc_monitoring_messages_sent_count[" + std::to_string(p) +
           "] after stopping another handle: read 0, ledger 1";
  };
  const std::vector<std::string> present = {line(0, 0), line(0, 1), line(1, 0), line(1, 1)};
  EXPECT_EQ(expected_lines_at(d, 2).size(), 4u);
  EXPECT_EQ(judge_pinned(d, true, "4.1", present, differences_from_expected_lines(d, present, 2)).outcome,
            Outcome::defect_present);
  EXPECT_EQ(judge_pinned(d, true, "4.1", {}, differences_from_expected_lines(d, {}, 2)).outcome, Outcome::defect_fixed);
  // One put still counted is not the modelled defect: the line of rank 1's put to 0 is missing.
  const std::vector<std::string> three = {line(0, 0), line(0, 1), line(1, 1)};
  auto missing = differences_from_expected_lines(d, three, 2);
  ASSERT_EQ(missing.size(), 1u);
  EXPECT_NE(missing[0].find("rank 1 osc_monitoring_messages_sent_count\\[0\\]"), std::string::npos) << missing[0];
  EXPECT_EQ(judge_pinned(d, true, "4.1", three, missing).outcome, Outcome::fails);
  std::vector<std::string> plus = present;
  plus.push_back("MISMATCH rank 0 coll_monitoring_messages_count[1]: read 2, ledger 1");
  Verdict v = judge_pinned(d, true, "4.1", plus, differences_from_expected_lines(d, plus, 2));
  EXPECT_EQ(v.outcome, Outcome::fails);
  EXPECT_EQ(v.details.front(), "against the model of stopping-one-handle-stops-all: unexpected: " + plus.back());
}

Ledger ledger(std::uint32_t rank, std::uint32_t n) { return Ledger(rank, n); }

std::uint64_t call_bytes(const Ledger& l, CollectiveKind k) {
  std::uint64_t b = 0;
  for (const auto& c : l.calls()) b += c.kind == k ? c.bytes : 0;
  return b;
}

// docs/defects.md: rank 3 of 4 records 20 bytes for a 5-int scan although it sends nothing; rank r
// sends 20 bytes to each higher rank (A2A 20 x (3 - r) ideally, 20 x (4 - r) recorded).
TEST(DefectRules, ScanAddsOneBlockToEveryAllToAllRecord) {
  std::vector<Ledger> ideal;
  for (std::uint32_t r = 0; r < 4; ++r) {
    ideal.push_back(ledger(r, 4));
    for (std::uint32_t p = r + 1; p < 4; ++p) ideal.back().record(TrafficClass::coll, p, 20);
    ideal.back().record_call(CollectiveKind::all_to_all, "mpimon_coll", 20 * (3 - r));
  }
  auto model = apply_defect("scan-record-off-by-one", ideal);
  for (std::uint32_t r = 0; r < 4; ++r) {
    EXPECT_EQ(call_bytes(model[r], CollectiveKind::all_to_all), 20u * (4 - r));
    EXPECT_EQ(model[r].entries().size(), ideal[r].entries().size());  // C entries are right
  }
}

// RR-9038: each process records towards the root; Open MPI records at the root towards each.
TEST(DefectRules, AllToOneIsRecordedByTheRootTowardsEachProcess) {
  std::vector<Ledger> ideal;
  for (std::uint32_t r = 0; r < 4; ++r) {
    ideal.push_back(ledger(r, 4));
    if (r != 1) ideal.back().record(TrafficClass::coll, 1, 16);
  }
  ideal[1].record_call(CollectiveKind::all_to_one, "mpimon_coll", 48);
  auto model = apply_defect("all-to-one-recorded-by-root", ideal);
  ASSERT_EQ(model[1].entries().size(), 3u);
  std::set<std::uint32_t> peers;
  for (const auto& e : model[1].entries()) peers.insert(e.peer);
  EXPECT_EQ(peers, (std::set<std::uint32_t>{0, 2, 3}));
  EXPECT_TRUE(model[0].entries().empty());
  EXPECT_EQ(call_bytes(model[1], CollectiveKind::all_to_one), 48u);  // the A2O record is as documented
}

TEST(DefectRules, FreedCommunicatorLosesItsRecordsOnly) {
  std::vector<Ledger> ideal{ledger(0, 1)};
  ideal[0].record_call(CollectiveKind::one_to_all, "mpimon_freed", 8);
  ideal[0].record_call(CollectiveKind::one_to_all, "mpimon_coll", 8);
  auto model = apply_defect("freed-communicator-record-lost", ideal);
  ASSERT_EQ(model[0].calls().size(), 1u);
  EXPECT_EQ(model[0].calls()[0].communicator, "mpimon_coll");
}

TEST(DefectRules, ListsWithoutMonitoringDropOnlyTheirClass) {
  std::vector<Ledger> ideal{ledger(0, 2)};
  ideal[0].record(TrafficClass::external, 1, 4);
  ideal[0].record(TrafficClass::osc_sent, 1, 12);
  auto osc = apply_defect("osc-list-disables-monitoring", ideal);
  ASSERT_EQ(osc[0].entries().size(), 1u);
  EXPECT_EQ(osc[0].entries()[0].traffic_class, TrafficClass::external);
  auto persistent = apply_defect("persistent-send-uncounted", ideal);
  ASSERT_EQ(persistent[0].entries().size(), 1u);
  EXPECT_EQ(persistent[0].entries()[0].traffic_class, TrafficClass::osc_sent);
  EXPECT_THROW(apply_defect("coll-list-crash", ideal), Error);
}

// ---- Whole-recording verdicts: crafted recordings of a pinned case against its ledgers -----------

const ValidationCase& validation_case(const std::string& name) {
  for (const auto& c : validation_cases()) {
    if (c.name == name) return c;
  }
  throw std::runtime_error("no case " + name);
}

// What a monitoring that records exactly `sent` (C entries per directed pair, records per
// communicator, rank and kind) writes: the test's own aggregation, not the code under test's.
struct Sent {
  std::uint32_t n = 4;
  std::map<std::pair<std::uint32_t, std::uint32_t>, std::pair<std::uint64_t, std::uint64_t>> coll;  // count, bytes
  std::map<std::tuple<std::string, std::uint32_t, CollectiveKind>, std::uint64_t> records;          // bytes, 1 call
  void c(std::uint32_t from, std::uint32_t to, std::uint64_t bytes) {
    auto& [count, sum] = coll[{from, to}];
    ++count;
    sum += bytes;
  }
};

RecordedTraffic recording(const Sent& s) {
  RecordedTraffic r;
  r.nprocs = s.n;
  for (std::size_t k = 0; k < kTrafficClassCount; ++k) {
    r.count[k] = SparseMatrix::zeros(s.n, s.n);
    r.bytes[k] = SparseMatrix::zeros(s.n, s.n);
  }
  std::vector<std::uint64_t> count(std::size_t{s.n} * s.n, 0), bytes(count.size(), 0);
  for (const auto& [pair, v] : s.coll) {
    count[pair.first * s.n + pair.second] = v.first;
    bytes[pair.first * s.n + pair.second] = v.second;
  }
  const auto coll = static_cast<std::size_t>(TrafficClass::coll);
  r.count[coll] = SparseMatrix::from_dense(s.n, s.n, count);
  r.bytes[coll] = SparseMatrix::from_dense(s.n, s.n, bytes);
  std::map<std::pair<std::string, std::uint32_t>, CommunicatorRow> rows;
  for (const auto& [key, b] : s.records) {
    const auto& [name, rank, kind] = key;
    auto it = std::find(r.communicators.names.begin(), r.communicators.names.end(), name);
    if (it == r.communicators.names.end()) {
      r.communicators.names.push_back(name);
      r.communicators.members.emplace_back();
      it = r.communicators.names.end() - 1;
    }
    CommunicatorRow& row = rows[{name, rank}];
    row.comm = static_cast<std::uint64_t>(it - r.communicators.names.begin());
    row.rank = rank;
    CollectiveTotals& t = kind == CollectiveKind::one_to_all   ? row.one_to_all
                          : kind == CollectiveKind::all_to_one ? row.all_to_one
                                                               : row.all_to_all;
    t.calls = 1;
    t.bytes = b;
  }
  for (const auto& [key, row] : rows) r.communicators.rows.push_back(row);
  return r;
}

// The ledgers mpimon-coll-ledger writes for MPI_Scatterv at 4 processes, root 1 (rank p's block:
// 5 + p ints): the root sends 20, 28 and 32 bytes and keeps 24.
std::vector<Ledger> scatterv_ledgers() {
  std::vector<Ledger> l;
  for (std::uint32_t r = 0; r < 4; ++r) l.push_back(ledger(r, 4));
  for (std::uint32_t p : {0u, 2u, 3u}) l[1].record(TrafficClass::coll, p, 4 * (5 + p));
  l[1].record_call(CollectiveKind::one_to_all, "mpimon_coll", 80);
  l[1].record_local("mpimon_coll", 24);
  return l;
}

Sent scatterv_ideal() {
  Sent s;
  for (std::uint32_t p : {0u, 2u, 3u}) s.c(1, p, 4 * (5 + p));
  s.records[{"mpimon_coll", 1, CollectiveKind::one_to_all}] = 80;
  return s;
}

// docs/defects.md#scatterv-counts-root-itself: C 1->1 with the root's 24 bytes, O2A 80 + 24.
Sent scatterv_defective() {
  Sent s = scatterv_ideal();
  s.c(1, 1, 24);
  s.records[{"mpimon_coll", 1, CollectiveKind::one_to_all}] = 104;
  return s;
}

TEST(RecordingVerdict, ScattervPresentFixedAndPresentPlusAnother) {
  const ValidationCase c =
      validation_case("coll.scatterv");  // a copy: GCC 14 flags a reference through a temporary key
  EXPECT_EQ(judge_recording(c, "4.1", recording(scatterv_defective()), scatterv_ledgers()).outcome,
            Outcome::defect_present);
  EXPECT_EQ(judge_recording(c, "4.1", recording(scatterv_ideal()), scatterv_ledgers()).outcome, Outcome::defect_fixed);
  Sent other = scatterv_defective();
  other.c(2, 3, 4);  // a second regression in the same case
  Verdict v = judge_recording(c, "4.1", recording(other), scatterv_ledgers());
  EXPECT_EQ(v.outcome, Outcome::fails);
  const bool names_other = std::any_of(v.details.begin(), v.details.end(), [](const std::string& d) {
    return d == "against the model of scatterv-counts-root-itself: coll 2->3 count: recorded 1, sent 0";
  });
  EXPECT_TRUE(names_other) << ::testing::PrintToString(v.details);
  // Only the root's O2A record one block too large, without the C entry to itself: not the defect.
  Sent half = scatterv_ideal();
  half.records[{"mpimon_coll", 1, CollectiveKind::one_to_all}] = 104;
  EXPECT_EQ(judge_recording(c, "4.1", recording(half), scatterv_ledgers()).outcome, Outcome::fails);
}

// The ledgers of MPI_Allgatherv at 4 processes (rank r sends its 5 + r ints to every other).
std::vector<Ledger> allgatherv_ledgers() {
  std::vector<Ledger> l;
  for (std::uint32_t r = 0; r < 4; ++r) {
    l.push_back(ledger(r, 4));
    for (std::uint32_t p = 0; p < 4; ++p) {
      if (p != r) l[r].record(TrafficClass::coll, p, 4 * (5 + r));
    }
    l[r].record_call(CollectiveKind::all_to_all, "mpimon_coll", 3 * 4 * (5 + r));
  }
  return l;
}

Sent allgatherv_ideal() {
  Sent s;
  for (std::uint32_t r = 0; r < 4; ++r) {
    for (std::uint32_t p = 0; p < 4; ++p) {
      if (p != r) s.c(r, p, 4 * (5 + r));
    }
    s.records[{"mpimon_coll", r, CollectiveKind::all_to_all}] = 3 * 4 * (5 + r);
  }
  return s;
}

// docs/defects.md#composite-collectives-counted-twice, written out: the inner gatherv to rank 0
// recorded by rank 0 (C 0->p with p's 4 x (5 + p) bytes, A2O 24 + 28 + 32 = 84) and the bcast of
// all 26 ints from rank 0 (C 0->p 104 bytes, O2A 3 x 104 = 312).
Sent allgatherv_defective() {
  Sent s = allgatherv_ideal();
  for (std::uint32_t p = 1; p < 4; ++p) {
    s.c(0, p, 4 * (5 + p));
    s.c(0, p, 104);
  }
  s.records[{"mpimon_coll", 0, CollectiveKind::all_to_one}] = 84;
  s.records[{"mpimon_coll", 0, CollectiveKind::one_to_all}] = 312;
  return s;
}

TEST(RecordingVerdict, AllgathervPresentFixedAndPresentPlusAnother) {
  const ValidationCase c =
      validation_case("coll.allgatherv");  // a copy: GCC 14 flags a reference through a temporary key
  EXPECT_EQ(judge_recording(c, "4.1", recording(allgatherv_defective()), allgatherv_ledgers()).outcome,
            Outcome::defect_present);
  EXPECT_EQ(judge_recording(c, "4.1", recording(allgatherv_ideal()), allgatherv_ledgers()).outcome,
            Outcome::defect_fixed);
  Sent other = allgatherv_defective();
  other.records[{"mpimon_coll", 2, CollectiveKind::all_to_all}] += 4;
  Verdict v = judge_recording(c, "4.1", recording(other), allgatherv_ledgers());
  EXPECT_EQ(v.outcome, Outcome::fails);
  EXPECT_EQ(v.details.front(),
            "against the model of composite-collectives-counted-twice: communicator mpimon_coll rank 2 A2A bytes: "
            "recorded 88, expected 84")
      << ::testing::PrintToString(v.details);
}

// A Bcast of 5 ints from root 1 on mpimon_freed, which is then freed before another dup.
std::vector<Ledger> freed_ledgers() {
  std::vector<Ledger> l;
  for (std::uint32_t r = 0; r < 4; ++r) l.push_back(ledger(r, 4));
  for (std::uint32_t p : {0u, 2u, 3u}) l[1].record(TrafficClass::coll, p, 20);
  l[1].record_call(CollectiveKind::one_to_all, "mpimon_freed", 60);
  return l;
}

TEST(RecordingVerdict, FreedCommunicatorPresentFixedAndPresentPlusAnother) {
  const ValidationCase c =
      validation_case("coll.bcast_on_freed_comm");  // a copy: GCC 14 flags a reference through a temporary key
  Sent lost;  // docs/defects.md#freed-communicator-record-lost: C right, no record of mpimon_freed
  for (std::uint32_t p : {0u, 2u, 3u}) lost.c(1, p, 20);
  Sent kept = lost;
  kept.records[{"mpimon_freed", 1, CollectiveKind::one_to_all}] = 60;
  EXPECT_EQ(judge_recording(c, "4.1", recording(lost), freed_ledgers()).outcome, Outcome::defect_present);
  EXPECT_EQ(judge_recording(c, "4.1", recording(kept), freed_ledgers()).outcome, Outcome::defect_fixed);
  Sent other = lost;
  other.c(0, 2, 4);  // e.g. the context-id agreement no longer subtracted exactly
  Verdict v = judge_recording(c, "4.1", recording(other), freed_ledgers());
  EXPECT_EQ(v.outcome, Outcome::fails);
  EXPECT_EQ(v.details.front(),
            "against the model of freed-communicator-record-lost: coll 0->2 count: recorded 1, sent 0")
      << ::testing::PrintToString(v.details);
}

TEST(DefectRules, ScattervRootRecordsItsOwnBlockOnce) {
  auto model = apply_defect("scatterv-counts-root-itself", scatterv_ledgers());
  EXPECT_EQ(call_bytes(model[1], CollectiveKind::one_to_all), 104u);
  const auto self = std::count_if(model[1].entries().begin(), model[1].entries().end(),
                                  [](const LedgerEntry& e) { return e.peer == 1 && e.bytes == 24; });
  EXPECT_EQ(self, 1);
  // A block kept without the call that kept it is not a ledger this rule can transform.
  std::vector<Ledger> orphan{ledger(0, 1)};
  orphan[0].record_local("mpimon_coll", 4);
  EXPECT_THROW(apply_defect("scatterv-counts-root-itself", orphan), Error);
}

// Every case that pins a defect is listed by the defect, and the reverse.
TEST(DefectTable, DrivesTheValidationCases) {
  std::set<std::pair<std::string, std::string>> from_cases, from_table;
  for (const auto& c : validation_cases()) {
    if (c.defect.empty()) continue;
    from_cases.insert({c.defect, c.name});
    EXPECT_EQ(c.defect_present_on, known_defect(c.defect).series) << c.name;
  }
  for (const auto& d : known_defects()) {
    for (const auto& p : d.pinned) {
      if (!p.starts_with("validation.")) from_table.insert({d.id, p});
    }
    if (d.rule == DefectRule::exact_report) {
      EXPECT_FALSE(d.expected_lines.empty()) << d.id;
    }
    EXPECT_FALSE(d.meaning.empty()) << d.id;
  }
  EXPECT_EQ(from_cases, from_table);
}

// docs/defects.md has one section and one table row per id of the table, and no other.
TEST(DefectTable, DocsListTheSameIds) {
  std::ifstream in(std::string(MPIMON_SOURCE_DIR) + "/docs/defects.md");
  ASSERT_TRUE(in) << "docs/defects.md not found";
  std::set<std::string> sections, rows, table;
  static const std::regex section(R"(^## ([a-z0-9-]+)$)"), row(R"(^\| ([a-z0-9-]+) \|)");
  std::smatch m;
  for (std::string line; std::getline(in, line);) {
    if (std::regex_search(line, m, section)) sections.insert(m[1]);
    // The defects table has 5 columns (id, defect, 4.1.4, 5.0.7, pinned by); others are not it.
    const bool defects_table_row = std::count(line.begin(), line.end(), '|') == 6;
    if (defects_table_row && std::regex_search(line, m, row) && m[1] != "id") rows.insert(m[1]);
  }
  for (const auto& d : known_defects()) table.insert(d.id);
  EXPECT_EQ(sections, table);
  EXPECT_EQ(rows, table);
}

std::set<std::string> warned(const RecordedFacts& facts) {
  std::set<std::string> ids;
  for (const auto& w : defects_affecting(facts)) ids.insert(w.id);
  return ids;
}

TEST(DefectsAffectingAFile, FollowWhatTheFileHolds) {
  EXPECT_TRUE(warned({}).empty());
  RecordedFacts gathers;
  gathers.all_to_one_records = true;
  EXPECT_EQ(warned(gathers), (std::set<std::string>{"all-to-one-recorded-by-root"}));
  RecordedFacts p2p;
  p2p.point_to_point = true;
  EXPECT_EQ(warned(p2p), (std::set<std::string>{"persistent-send-uncounted"}));
  p2p.internal_distinguished = true;
  EXPECT_EQ(warned(p2p), (std::set<std::string>{"persistent-send-uncounted", "persistent-collective-external"}));
  p2p.open_mpi_series = "5.0";
  EXPECT_EQ(warned(p2p).size(), 2u);
}

// The run's components decide the one defect a left-out component shows; unknown ones decide nothing.
TEST(DefectsAffectingAFile, FollowTheComponentsLoaded) {
  RecordedFacts facts;
  facts.open_mpi_series = "4.1";
  EXPECT_TRUE(warned(facts).empty());
  facts.monitoring_components = {"coll", "osc", "pml"};
  EXPECT_TRUE(warned(facts).empty());
  facts.monitoring_components = {"coll", "pml"};
  EXPECT_EQ(warned(facts), (std::set<std::string>{"osc-list-disables-monitoring"}));
}

// The series and components come from the file's root attributes, as a run writes them.
TEST(DefectsAffectingAFile, FactsFromTheFile) {
  const ScratchDirectory dir(std::filesystem::temp_directory_path(), "mpimon-facts-");
  const auto prof = (dir.path() / "app.0.prof").string();
  std::ofstream(prof) << "# POINT TO POINT\nE\t0\t1\t1 bytes\t1 msgs sent\n# OSC\n# COLLECTIVES\n";
  MergeOptions options;
  options.root_strings = {{"open_mpi_version", "5.0.7"}};
  options.root_string_lists = {{"monitoring_components", {"coll", "pml"}}};
  merge_prof_files({prof}, (dir.path() / "app.h5").string(), options);
  const MatrixFile file((dir.path() / "app.h5").string());
  const RecordedFacts facts = recorded_facts(file, "app", file.communicators("app"), false);
  EXPECT_EQ(facts.open_mpi_series, "5.0");
  EXPECT_EQ(facts.monitoring_components, (std::vector<std::string>{"coll", "pml"}));
  EXPECT_TRUE(facts.point_to_point);
  EXPECT_EQ(warned(facts), (std::set<std::string>{"persistent-send-uncounted", "osc-list-disables-monitoring"}));
}

// A defect of one series only (the table says which) is not warned of on another.
TEST(DefectsAffectingAFile, FollowTheSeries) {
  RecordedFacts facts;
  facts.point_to_point = true;
  facts.open_mpi_series = "6.1";  // a series no defect is established for
  EXPECT_TRUE(warned(facts).empty());
}

// The collective sweep pins, in validation/collectives.cmake, exactly the defects of the
// collective model, each by the check the table names.
TEST(DefectTable, DrivesTheCollectiveSweepPins) {
  std::ifstream in(std::string(MPIMON_SOURCE_DIR) + "/validation/collectives.cmake");
  ASSERT_TRUE(in) << "validation/collectives.cmake not found";
  static const std::regex pin(
      R"(^mpimon_add_collective_check\(([a-z_]+) ([a-z_-]+) ([0-9]+) .*VARIANT ([a-z0-9_]+) DEFECT ([a-z0-9-]+)\))");
  std::set<std::pair<std::string, std::string>> in_cmake, in_table;
  std::smatch m;
  for (std::string line; std::getline(in, line);) {
    if (std::regex_search(line, m, pin)) {
      in_cmake.insert(
          {m[5], "validation.collective." + m[1].str() + "." + m[2].str() + ".np" + m[3].str() + "." + m[4].str()});
    }
  }
  for (const auto& d : known_defects()) {
    if (d.rule != DefectRule::collective_model) continue;
    for (const auto& p : d.pinned) in_table.insert({d.id, p});
  }
  EXPECT_FALSE(in_table.empty());
  EXPECT_EQ(in_cmake, in_table);
}

}  // namespace
}  // namespace mpimon::harness
