// Unit tests of the sweeps' planning and resume, without mpirun: a fake launcher records what it
// was asked to run. Expected plans are counted by hand from the options (docs/apps.md,
// docs/overhead.md).

#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <functional>
#include <map>
#include <sstream>

#include "harness_test_util.hpp"
#include "mpimon/harness/app_sweep.hpp"
#include "mpimon/harness/overhead_sweep.hpp"
#include "mpimon/models/workloads.hpp"
#include "mpimon/results/overhead.hpp"

namespace mpimon::harness {
namespace {

using Words = std::vector<std::string>;

std::vector<std::string> lines_of(const std::string& text) {
  std::vector<std::string> lines;
  std::istringstream in(text);
  for (std::string line; std::getline(in, line);) lines.push_back(line);
  return lines;
}

TEST(IsSquare, ByHand) {
  for (std::uint32_t n : {0u, 1u, 4u, 9u, 16u, 64u, 65536u}) EXPECT_TRUE(is_square(n)) << n;
  for (std::uint32_t n : {2u, 3u, 5u, 8u, 15u, 17u, 65535u}) EXPECT_FALSE(is_square(n)) << n;
}

TEST(WorkloadApps, OnePerWorkloadAndClassAndOnePerStencilCompute) {
  auto apps =
      workload_apps("wl", {"cg", "bt", "stencil"}, {"small"}, {"--iterations", "3"}, {"--halo", "8"}, {"0", "1e6"});
  ASSERT_EQ(apps.size(), 4u);
  EXPECT_EQ(apps[0].label, "cg.small");
  EXPECT_EQ(apps[0].argv, (Words{"wl", "--workload", "cg", "--class", "small", "--iterations", "3"}));
  EXPECT_FALSE(apps[0].square_np);
  EXPECT_EQ(apps[1].label, "bt.small");
  EXPECT_TRUE(apps[1].square_np);
  EXPECT_EQ(apps[2].label, "stencil.small.compute=0");
  EXPECT_EQ(apps[2].argv, (Words{"wl", "--workload", "stencil", "--class", "small", "--iterations", "3", "--halo", "8",
                                 "--compute", "0"}));
  EXPECT_EQ(apps[3].label, "stencil.small.compute=1e6");
  for (const auto& a : apps) EXPECT_TRUE(a.workload);
}

TEST(WorkloadApps, UnknownWorkloadIsAUsageError) {
  EXPECT_NE(test::error_of([] {
              workload_apps("wl", {"ft"}, {"small"}, {}, {}, {});
            }).find("--workload takes " + workload_list() + ", not 'ft'"),
            std::string::npos);
}

// The classes of docs/workloads.md; an unknown one is refused whatever the workloads.
TEST(WorkloadApps, UnknownClassIsAUsageError) {
  EXPECT_NE(test::error_of([] {
              workload_apps("wl", {"cg"}, {"small", "huge"}, {}, {}, {});
            }).find("--class takes " + workload_class_list() + ", not 'huge'"),
            std::string::npos);
}

TEST(WorkloadApps, NoLaunchPlannedNamesTheWorkloadsThatNeedASquare) {
  AppSweep s;
  s.apps = workload_apps("wl", {"bt"}, {"small", "medium"}, {}, {}, {});
  s.nps = {2, 3};
  s.pairs = 1;
  s.arms = {{"off", false, {}, ""}, {"on", true, {}, ""}};
  EXPECT_EQ(test::error_of([&] { check_launches_planned(s); }),
            "no launch to run: bt.small, bt.medium need a square number of processes (--np 1,4,9,...)");
  s.nps = {4};
  EXPECT_NO_THROW(check_launches_planned(s));
}

AppSweep two_apps(std::uint32_t pairs) {
  AppSweep s;
  s.apps = {{"cg", {"cg.x"}, false, false}, {"bt", {"bt.x"}, false, true}};
  s.nps = {2, 4};
  s.pairs = pairs;
  return s;
}

TEST(AppPlan, SquareOnlyAppsSkipOtherProcessCounts) {
  AppSweep s = two_apps(3);
  auto launches = plan(s);
  // cg at np 2 and 4, bt at np 4 only: 3 configurations x 3 pairs x 2 arms.
  ASSERT_EQ(launches.size(), 18u);
  std::map<std::pair<std::string, std::uint32_t>, int> per_configuration;
  for (const auto& p : launches) ++per_configuration[{p.key.app, p.key.np}];
  EXPECT_EQ(per_configuration,
            (std::map<std::pair<std::string, std::uint32_t>, int>{{{"bt", 4}, 6}, {{"cg", 2}, 6}, {{"cg", 4}, 6}}));
}

TEST(AppPlan, EachPairIsOffAndOnInConsecutivePositions) {
  AppSweep s = two_apps(5);
  auto launches = plan(s);
  ASSERT_EQ(launches.size() % 2, 0u);
  bool off_first = false, on_first = false;
  for (std::size_t i = 0; i < launches.size(); i += 2) {
    const auto& a = launches[i];
    const auto& b = launches[i + 1];
    EXPECT_EQ(a.key.app, b.key.app);
    EXPECT_EQ(a.key.np, b.key.np);
    EXPECT_EQ(a.key.pair, b.key.pair);
    EXPECT_EQ(a.position, 0u);
    EXPECT_EQ(b.position, 1u);
    EXPECT_NE(a.key.arm, b.key.arm);
    (a.key.arm == "off" ? off_first : on_first) = true;
  }
  // 15 pairs: both orders occur unless the draw is 15 times the same (probability 2^-14).
  EXPECT_TRUE(off_first && on_first);
  // The same seed plans the same sweep (what --resume relies on); pairs are numbered from 1.
  auto again = plan(s);
  for (std::size_t i = 0; i < launches.size(); ++i) EXPECT_EQ(launches[i].key, again[i].key);
  EXPECT_EQ(launches.front().key.pair, 1u);
}

TEST(AppSweepResume, LaunchesAlreadyOkAreNotRunAgain) {
  test::TempDir dir;
  const std::string log = dir.file("launches.log");
  AppSweep s;
  s.h.launcher = test::fake_launcher(dir, log);
  s.apps = {{"app", {"app.x"}, false, false}};
  s.nps = {1};
  s.pairs = 3;
  s.output = dir.file("apps.h5");
  AppResults::create(s.output, configuration_of(s));
  AppResults results(s.output);
  // Every "on" launch and the "off" launch of pair 2 are done; the fake launcher writes no dumps,
  // so an "on" launch it ran would fail and stop the sweep.
  for (std::uint32_t pair = 1; pair <= 3; ++pair) {
    AppLaunchRecord on;
    on.key = {"app", 1, pair, "on"};
    on.status = "ok";
    results.append(on);
  }
  AppLaunchRecord off2;
  off2.key = {"app", 1, 2, "off"};
  off2.status = "ok";
  results.append(off2);

  EXPECT_EQ(run_sweep(s, results, "test").count(), 0u);
  // Two launches ran: the "off" arms of pairs 1 and 3.
  EXPECT_EQ(lines_of(test::read_text(log)), (Words{"off default -np 1 app.x", "off default -np 1 app.x"}));
  EXPECT_EQ(results.completed().size(), 6u);
}

// One application, np 1, two pairs, launched by a launcher that exits 3; its results file created.
AppSweep failing_sweep(const test::TempDir& dir, const std::string& log) {
  AppSweep s;
  s.h.launcher = test::fake_launcher(dir, log, 3);
  s.apps = {{"app", {"app.x"}, false, false}};
  s.nps = {1};
  s.pairs = 2;
  s.output = dir.file("apps.h5");
  AppResults::create(s.output, configuration_of(s));
  return s;
}

TEST(AppSweepResume, AFailedLaunchStopsTheSweepAndIsRetriedNextTime) {
  test::TempDir dir;
  const std::string log = dir.file("launches.log");
  AppSweep s = failing_sweep(dir, log);
  AppResults results(s.output);
  const FailedLaunches failed = run_sweep(s, results, "test");
  EXPECT_EQ(failed.count(), 1u);
  EXPECT_TRUE(failed.stopped);
  EXPECT_EQ(lines_of(test::read_text(log)).size(), 1u);
  EXPECT_TRUE(results.completed().empty());
  // Its log: the command line, the status and the output, in RESULTS.logs/.
  std::vector<std::filesystem::path> logs;
  for (const auto& e : std::filesystem::directory_iterator(logs_directory(s.output))) logs.push_back(e.path());
  ASSERT_EQ(logs.size(), 1u);
  const std::string text = test::read_text(logs[0].string());
  EXPECT_NE(text.find("status: exit code 3: "), std::string::npos) << text;
  EXPECT_NE(text.find("command: "), std::string::npos) << text;
  const std::string error = test::error_of([&] { failed.raise_if_any(); });
  EXPECT_NE(error.find("1 of 1 launches run failed (the sweep stopped at it"), std::string::npos) << error;
  EXPECT_NE(error.find("their logs: " + logs_directory(s.output)), std::string::npos) << error;
  EXPECT_EQ(run_sweep(s, results, "test").count(), 1u);
  EXPECT_EQ(lines_of(test::read_text(log)).size(), 2u) << "the failed launch is tried again";
}

TEST(AppSweepResume, KeepGoingRunsEveryLaunchAndStillCountsTheFailures) {
  test::TempDir dir;
  const std::string log = dir.file("launches.log");
  AppSweep s = failing_sweep(dir, log);
  s.keep_going = true;
  AppResults results(s.output);
  const FailedLaunches failed = run_sweep(s, results, "test");
  EXPECT_EQ(failed.count(), 4u);
  EXPECT_FALSE(failed.stopped);
  EXPECT_EQ(lines_of(test::read_text(log)).size(), 4u);
  const std::string error = test::error_of([&] { failed.raise_if_any(); });
  EXPECT_NE(error.find("4 of 4 launches run failed, the first: app np 1 pair 1"), std::string::npos) << error;
  EXPECT_NE(error.find("their logs: " + logs_directory(s.output)), std::string::npos) << error;
}

// --- bench placement: the arms are two rankfiles (docs/placement.md).

TEST(RankfileArms, TwoRankfilesMakeArmsAAndBWithMonitoringOff) {
  test::TempDir dir;
  const std::string a = dir.write("a.rf", "rank 0=h slot=0\nrank 1=h slot=1\n");
  const std::string b = dir.write("b.rf", "# swapped\nrank 1=h slot=0\n  rank 0 = h slot=1\n");
  auto arms = rankfile_arms(a, b, 2, "/usr/bin/mpirun");
  ASSERT_EQ(arms.size(), 2u);
  EXPECT_EQ(arms[0].name, "A");
  EXPECT_EQ(arms[1].name, "B");
  EXPECT_FALSE(arms[0].monitoring || arms[1].monitoring);
  EXPECT_EQ(arms[0].launcher_options, (Words{"--rankfile", a, "--report-bindings"}));
  EXPECT_EQ(arms[1].launcher_options, (Words{"--rankfile", b, "--report-bindings"}));
  EXPECT_EQ(arms[1].description, "rankfile " + b + ":\n# swapped\nrank 1=h slot=0\n  rank 0 = h slot=1\n");
}

TEST(RankfileArms, BadRankfilesAreNamed) {
  test::TempDir dir;
  const std::string a = dir.write("a.rf", "rank 0=h slot=0\nrank 1=h slot=1\n");
  const std::string copy = dir.write("copy.rf", "rank 0=h slot=0\nrank 1=h slot=1\n");
  const std::string short_one = dir.write("short.rf", "rank 0=h slot=1\n");
  auto usage = [](const std::function<void()>& f) {
    try {
      f();
    } catch (const Error& e) {
      return e.kind() == Error::Kind::usage;
    }
    return false;
  };
  EXPECT_NE(test::error_of([&] { rankfile_arms(a, copy, 2, "mpirun"); }).find("hold the same placement"),
            std::string::npos);
  EXPECT_TRUE(usage([&] { rankfile_arms(a, a, 2, "mpirun"); }));
  const std::string missing = dir.file("missing.rf");
  EXPECT_NE(test::error_of([&] { rankfile_arms(a, missing, 2, "mpirun"); }).find(missing + ": cannot read"),
            std::string::npos);
  EXPECT_NE(test::error_of([&] { rankfile_arms(dir.path().string(), a, 2, "mpirun"); }).find("cannot read"),
            std::string::npos);
  // rank 1 has no line: mpirun would refuse the file at np 2, not at np 1.
  EXPECT_NE(test::error_of([&] { rankfile_arms(a, short_one, 2, "mpirun"); }).find(short_one + ": no 'rank 1=' line"),
            std::string::npos);
  EXPECT_EQ(test::error_of([&] { rankfile_arms(a, short_one, 1, "mpiexec"); }), "");
  EXPECT_TRUE(usage([&] { rankfile_arms(a, short_one, 1, "srun"); }));
}

// --- bench placement --arm: placements made inside the run (docs/reorder.md).

using Environment = std::vector<std::pair<std::string, std::string>>;

TEST(PlacementArms, KindsAddTheirLauncherOptionsAndVariables) {
  test::TempDir dir;
  const std::string library = dir.write("libmpimon-reorder.so", "");
  setenv("MPIMON_REORDER_LIBRARY", library.c_str(), 1);
  auto arms = placement_arms({"launcher", "reorder"}, 4, "mpirun");
  ASSERT_EQ(arms.size(), 2u);
  EXPECT_EQ(arms[0].name, "A");
  EXPECT_EQ(arms[1].name, "B");
  EXPECT_FALSE(arms[0].monitoring || arms[1].monitoring);
  EXPECT_EQ(arms[0].launcher_options, Words{});
  EXPECT_EQ(arms[1].launcher_options, Words{});
  EXPECT_EQ(arms[1].environment, (Environment{{"LD_PRELOAD", library}}));
  EXPECT_EQ(arms[1].description.rfind("reorder: ", 0), 0u) << arms[1].description;
  EXPECT_FALSE(arms[0].reorder_statistics);
  EXPECT_TRUE(arms[1].reorder_statistics);  // each launch keeps the library's statistics
  arms = placement_arms({"reorder-off", "treematch"}, 4, "/opt/ompi/bin/mpiexec");
  EXPECT_EQ(arms[0].launcher_options, Words{});
  EXPECT_EQ(arms[0].environment, (Environment{{"MPIMON_REORDER", "off"}}));
  EXPECT_EQ(arms[1].launcher_options, (Words{"--mca", "topo", "treematch"}));
  EXPECT_EQ(arms[1].environment, Environment{});
  EXPECT_FALSE(arms[0].reorder_statistics || arms[1].reorder_statistics);
  // A rankfile against a kind.
  const std::string a = dir.write("a.rf", "rank 0=h slot=0\n");
  arms = placement_arms({"rankfile:" + a, "launcher"}, 1, "mpirun");
  EXPECT_EQ(arms[0].launcher_options, (Words{"--rankfile", a, "--report-bindings"}));
  EXPECT_EQ(arms[1].launcher_options, Words{});
  unsetenv("MPIMON_REORDER_LIBRARY");
}

TEST(PlacementArms, BadArmsAreUsageErrors) {
  auto usage = [](const std::function<void()>& f) {
    try {
      f();
    } catch (const Error& e) {
      return e.kind() == Error::Kind::usage ? std::string(e.what()) : std::string("not usage: ") + e.what();
    }
    return std::string("no error");
  };
  EXPECT_NE(usage([] {
              placement_arms({"launcher", "launcher"}, 2, "mpirun");
            }).find("the two arms are the same"),
            std::string::npos);
  EXPECT_NE(usage([] {
              placement_arms({"bogus", "launcher"}, 2, "mpirun");
            }).find("--arm takes launcher, reorder, reorder-off, treematch, rankfile:FILE, not 'bogus'"),
            std::string::npos);
  EXPECT_NE(usage([] { placement_arms({"launcher"}, 2, "mpirun"); }).find("exactly two"), std::string::npos);
  EXPECT_NE(usage([] {
              placement_arms({"launcher", "treematch"}, 2, "srun");
            }).find("--arm is an option of Open MPI"),
            std::string::npos);
}

TEST(BindingLines, KeepsTheLauncherBindingReports) {
  const std::string output =
      "mpimon-workload: {}\n"
      "[vm:10294] MCW rank 0 bound to socket 0[core 0[hwt 0]]: [B/.]\n"
      "hello\n"
      "[vm:10294] MCW rank 1 is not bound (or bound to all available processors)\n"
      "[host:123] Rank 2 bound to package[0][core:1]\n";
  EXPECT_EQ(binding_lines(output),
            "[vm:10294] MCW rank 0 bound to socket 0[core 0[hwt 0]]: [B/.]\n"
            "[vm:10294] MCW rank 1 is not bound (or bound to all available processors)\n"
            "[host:123] Rank 2 bound to package[0][core:1]");
  EXPECT_EQ(binding_lines("no report\n"), "");
}

AppSweep two_rankfiles(const test::TempDir& dir, const std::string& launcher, std::uint32_t pairs) {
  AppSweep s;
  s.h.launcher = launcher;
  s.h.bind = "launcher";
  s.apps = {{"app", {"app.x"}, false, false}};
  s.nps = {2};
  s.pairs = pairs;
  s.output = dir.file("placement.h5");
  s.arms = {{"A", false, {"--rankfile", "a.rf"}, "rankfile a.rf"},
            {"B", false, {"--rankfile", "b.rf"}, "rankfile b.rf"}};
  return s;
}

TEST(RankfileSweep, EachPairLaunchesBothRankfilesWithMonitoringOff) {
  test::TempDir dir;
  const std::string log = dir.file("launches.log");
  AppSweep s = two_rankfiles(dir, test::fake_launcher(dir, log), 6);
  auto planned = plan(s);
  ASSERT_EQ(planned.size(), 12u);
  bool a_first = false, b_first = false;
  for (std::size_t i = 0; i < planned.size(); i += 2) {
    EXPECT_EQ(planned[i].key.pair, planned[i + 1].key.pair);
    EXPECT_NE(planned[i].key.arm, planned[i + 1].key.arm);
    (planned[i].key.arm == "A" ? a_first : b_first) = true;
  }
  // 6 pairs: both orders occur unless the draw is 6 times the same (probability 2^-5).
  EXPECT_TRUE(a_first && b_first);

  const auto run = run_app_sweep(s, "test");
  const auto& launches = run.launches;
  const auto& failed = run.failed;
  EXPECT_EQ(failed.count(), 0u);
  ASSERT_EQ(launches.size(), 12u);
  // The fake launcher logs "MONITORING BTL ARGS": monitoring never on, each arm its own rankfile.
  auto lines = lines_of(test::read_text(log));
  ASSERT_EQ(lines.size(), 12u);
  for (std::size_t i = 0; i < lines.size(); ++i) {
    const std::string rankfile = launches[i].key.arm == "A" ? "a.rf" : "b.rf";
    EXPECT_EQ(lines[i], "off default -np 2 --rankfile " + rankfile + " app.x") << i;
    EXPECT_NE(launches[i].command.find("--rankfile " + rankfile), std::string::npos);
    EXPECT_EQ(launches[i].status, "ok");
  }
  auto rows = analyze_apps(launches, 0.95, {"A", "B"});
  ASSERT_EQ(rows.size(), 1u);
  EXPECT_EQ(rows[0].analysis.n, 6u);
  auto c = AppResults(s.output).configuration();
  EXPECT_EQ(c["arms"], "A,B");
  EXPECT_EQ(c["arm_A"], "rankfile a.rf");
  EXPECT_EQ(c["arm_B"], "rankfile b.rf");
}

TEST(RankfileSweep, ResumeNeedsTheSameArms) {
  test::TempDir dir;
  const std::string log = dir.file("launches.log");
  AppSweep s = two_rankfiles(dir, test::fake_launcher(dir, log), 1);
  (void)run_app_sweep(s, "test");
  EXPECT_NE(test::error_of([&] { (void)run_app_sweep(s, "test"); }).find("exists: use --resume"), std::string::npos);
  s.resume = true;
  s.pairs = 2;
  EXPECT_EQ(run_app_sweep(s, "test").launches.size(), 4u);
  s.arms[1].description = "rankfile c.rf";
  s.pairs = 3;
  EXPECT_NE(
      test::error_of([&] { (void)run_app_sweep(s, "test"); }).find("was recorded with other arms (arm_B differs)"),
      std::string::npos);
  EXPECT_EQ(lines_of(test::read_text(log)).size(), 4u) << "nothing launched after the refusal";
}

TEST(AppSweepFile, ANewFileWithoutASuccessfulLaunchIsRemoved) {
  test::TempDir dir;
  AppSweep s = two_rankfiles(dir, test::fake_launcher(dir, dir.file("log"), 3), 1);
  EXPECT_NE(test::error_of([&] { (void)run_app_sweep(s, "test"); }).find("no launch succeeded: no results file"),
            std::string::npos);
  EXPECT_FALSE(std::filesystem::exists(s.output));
}

Sweep small_overhead_sweep(const test::TempDir& dir, const std::string& launcher) {
  Sweep s;
  s.h.launcher = launcher;
  s.h.seed = 5;
  s.ops = "send";
  s.sizes = "8";
  s.program = "bench.x";
  s.output = dir.file("overhead.h5");
  s.nps = {2};
  s.transports = {"shared", "tcp"};
  s.arms = {"off", "on"};
  s.pairs = 2;
  return s;
}

TEST(OverheadSweepResume, OnlyLaunchesNotYetOkRun) {
  test::TempDir dir;
  const std::string log = dir.file("launches.log");
  Sweep s = small_overhead_sweep(dir, test::fake_launcher(dir, log));
  OverheadResults::create(s.output, configuration_of(s));
  {
    OverheadResults results(s.output);
    for (const char* transport : {"shared", "tcp"}) {
      for (const char* arm : {"off", "on"}) {
        LaunchRecord done;
        done.key = {transport, 2, 1, arm};
        done.status = "ok";
        results.append(done);
      }
    }
  }
  s.resume = true;
  s.keep_going = true;  // every launch of the fake launcher fails (no samples)
  const FailedLaunches failed = run_sweep("test", s);
  EXPECT_EQ(failed.count(), 4u);
  EXPECT_FALSE(failed.stopped);
  // 2 transports x 2 pairs x 2 arms planned, pair 1 of each transport done: 4 launches run, the
  // pair-2 arms, each with the pair's benchmark seed (seed * 1000003 + pair).
  auto launches = lines_of(test::read_text(log));
  ASSERT_EQ(launches.size(), 4u);
  std::map<std::string, int> arms;  // "MONITORING BTL" of each launch
  for (const auto& line : launches) {
    EXPECT_NE(line.find(" bench.x --ops send --sizes 8 "), std::string::npos) << line;
    EXPECT_NE(line.find("--seed 5000017 "), std::string::npos) << line;
    ++arms[line.substr(0, line.find(" -np"))];
  }
  EXPECT_EQ(arms,
            (std::map<std::string, int>{{"1 default", 1}, {"1 tcp,self", 1}, {"off default", 1}, {"off tcp,self", 1}}));
  // The fake launcher wrote no samples: the launches are recorded, not ok, and a resume retries them.
  OverheadResults results(s.output);
  EXPECT_EQ(results.completed().size(), 4u);
  EXPECT_EQ(results.launches().size(), 8u);
}

TEST(OverheadSweep, AFailedLaunchStopsTheSweepWithoutKeepGoing) {
  test::TempDir dir;
  const std::string log = dir.file("launches.log");
  Sweep s = small_overhead_sweep(dir, test::fake_launcher(dir, log, 2));
  const FailedLaunches failed = run_sweep("test", s);
  EXPECT_EQ(failed.count(), 1u);
  EXPECT_TRUE(failed.stopped);
  EXPECT_EQ(lines_of(test::read_text(log)).size(), 1u) << "nothing launched after the failure";
  const std::string error = test::error_of([&] { failed.raise_if_any(); });
  EXPECT_NE(error.find("1 of 1 launches run failed"), std::string::npos) << error;
  EXPECT_NE(error.find("their logs: " + s.output + ".logs"), std::string::npos) << error;
}

TEST(OverheadSweep, ExistingOutputNeedsResume) {
  test::TempDir dir;
  Sweep s = small_overhead_sweep(dir, "true");
  dir.write("overhead.h5", "");
  EXPECT_NE(test::error_of([&] { (void)run_sweep("test", s); }).find("exists: use --resume"), std::string::npos);
}

TEST(OverheadSweep, ConfigurationRecordsTheSweep) {
  test::TempDir dir;
  Sweep s = small_overhead_sweep(dir, "true");
  auto c = configuration_of(s);
  EXPECT_EQ(c["ops"], "send");
  EXPECT_EQ(c["np"], "2");
  EXPECT_EQ(c["pairs"], "2");
  EXPECT_EQ(c["arms"], "off,on");
  EXPECT_EQ(c["transports"], "shared,tcp");
  EXPECT_EQ(c["program"], "bench.x");
  EXPECT_EQ(c["launcher"], "true");
  EXPECT_EQ(c["seed"], "5");
}

}  // namespace
}  // namespace mpimon::harness
