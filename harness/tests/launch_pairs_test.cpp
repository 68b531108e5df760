// Unit tests of what the launch-pair harnesses share: the arms' settings, binding, the arm order
// within a pair, the failure status of a launch and the provenance recorded. Expected values are
// written from the rules (docs/overhead.md, launch_pairs.hpp).

#include "mpimon/harness/launch_pairs.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <set>
#include <thread>

#include "harness_test_util.hpp"
#include "mpimon/base/scratch.hpp"

namespace mpimon::harness {
namespace {

using Words = std::vector<std::string>;

/// The words after "LAUNCHER -np N".
Words options_of(const MpiLaunch& l) { return {l.argv().begin() + 3, l.argv().end()}; }

TEST(FailureStatus, SuccessIsEmpty) { EXPECT_EQ(failure_status({0, false, "anything"}, 60), ""); }

TEST(FailureStatus, TimeoutNamesTheTimeout) {
  // A timed-out launch was killed (SIGKILL): the timeout is the reason, not the exit code.
  EXPECT_EQ(failure_status({137, true, "partial output\n"}, 60), "timeout after 60 s");
}

TEST(FailureStatus, ExitCodeWithLastLineThatSaysSomething) {
  const std::string mpirun_output =
      "rank 0 started\n"
      "--------------------------------------------------------------------------\n"
      "mpirun noticed that process rank 1 exited on signal 11 (Segmentation fault).\n"
      "--------------------------------------------------------------------------\n"
      "   \n";
  EXPECT_EQ(failure_status({139, false, mpirun_output}, 60),
            "exit code 139: mpirun noticed that process rank 1 exited on signal 11 (Segmentation fault).");
  EXPECT_EQ(failure_status({1, false, ""}, 60), "exit code 1: ");
}

TEST(FailureStatus, LastLineIsCutAt200Characters) {
  const std::string long_line(300, 'x');
  EXPECT_EQ(failure_status({2, false, long_line + "\n"}, 60), "exit code 2: " + std::string(200, 'x'));
}

TEST(Arms, MonitoringOffClosesTheComponentsOfEachFramework) {
  MpiLaunch l("mpirun", 2);
  monitoring_off(l, {});
  EXPECT_EQ(options_of(l),
            (Words{"--mca", "pml", "^monitoring", "--mca", "osc", "^monitoring", "--mca", "coll", "^monitoring"}));
}

TEST(Arms, MonitoringOffLeavesAFrameworkTheUserChose) {
  MpiLaunch l("mpirun", 2);
  monitoring_off(l, {"pml=ob1", "btl_tcp_if_include=lo"});
  EXPECT_EQ(options_of(l), (Words{"--mca", "osc", "^monitoring", "--mca", "coll", "^monitoring"}));
}

TEST(Arms, MonitoringOnWithAndWithoutDumps) {
  MpiLaunch with_dumps("mpirun", 2);
  monitoring_on(with_dumps, 2, "/tmp/x/prof/run");
  EXPECT_EQ(options_of(with_dumps),
            (Words{"--mca", "pml_monitoring_enable", "2", "--mca", "pml_monitoring_enable_output", "3", "--mca",
                   "pml_monitoring_filename", "/tmp/x/prof/run"}));
  MpiLaunch without("mpirun", 2);
  monitoring_on(without, 1, "");
  EXPECT_EQ(options_of(without), (Words{"--mca", "pml_monitoring_enable", "1"}));
}

TEST(Arms, MonitoringOnForAnotherLauncherIsEnvironment) {
  MpiLaunch l("srun", 2);
  monitoring_on(l, 1, "run");
  user_mca(l, {"pml=ob1,monitoring"});
  EXPECT_EQ(options_of(l), Words{});
  EXPECT_EQ(l.text(),
            "OMPI_MCA_pml=ob1,monitoring OMPI_MCA_pml_monitoring_enable=1 OMPI_MCA_pml_monitoring_enable_output=3 "
            "OMPI_MCA_pml_monitoring_filename=run srun -n 2");
}

TEST(Arms, UserMcaSplitsAtTheFirstEquals) {
  MpiLaunch l("mpirun", 2);
  user_mca(l, {"pml_monitoring_filename=a=b", "btl=self,vader"});
  EXPECT_EQ(options_of(l), (Words{"--mca", "pml_monitoring_filename", "a=b", "--mca", "btl", "self,vader"}));
}

TEST(Binding, ExplicitChoices) {
  MpiLaunch core("mpirun", 1);
  bind_processes(core, 1, "core");
  EXPECT_EQ(options_of(core), (Words{"--bind-to", "core"}));
  MpiLaunch none("mpirun", 1);
  bind_processes(none, 1, "none");
  EXPECT_EQ(options_of(none), (Words{"--bind-to", "none"}));
  MpiLaunch launcher("mpirun", 1);
  bind_processes(launcher, 1, "launcher");
  EXPECT_EQ(options_of(launcher), Words{});
}

TEST(Binding, AutoBindsToCoresWhenTheProcessesFit) {
  MpiLaunch fits("mpirun", 1);
  bind_processes(fits, 1, "auto");
  EXPECT_EQ(options_of(fits), (Words{"--bind-to", "core"}));
  // More processes than cores: no binding, and oversubscription allowed.
  const auto too_many = std::thread::hardware_concurrency() + 1;
  MpiLaunch over("mpirun", too_many);
  bind_processes(over, too_many, "auto");
  EXPECT_EQ(options_of(over), (Words{"--bind-to", "none", "--oversubscribe"}));
}

// srun(1): --cpu-bind=cores or none; auto leaves it to Slurm (this machine's cores are not the
// nodes'), and srun has no oversubscription flag of its own to add (-O is the user's).
TEST(Binding, SrunBindsInItsOwnWordsAndOtherLaunchersAreLeftAlone) {
  for (const auto& [bind, words] : std::vector<std::pair<std::string, Words>>{
           {"core", {"--cpu-bind=cores"}}, {"none", {"--cpu-bind=none"}}, {"auto", {}}, {"launcher", {}}}) {
    MpiLaunch l("srun", 1000);
    bind_processes(l, 1000, bind);
    EXPECT_EQ(options_of(l), words) << bind;
  }
  MpiLaunch other("mpiexec.hydra", 2);
  bind_processes(other, 2, "core");
  EXPECT_EQ(options_of(other), Words{});
}

TEST(Settings, BadMcaAndBindAreUsageErrors) {
  HarnessSettings s;
  s.mca = {"pml"};
  try {
    check_harness_settings(s);
    FAIL() << "no error";
  } catch (const Error& e) {
    EXPECT_EQ(e.kind(), Error::Kind::usage);
    EXPECT_NE(std::string(e.what()).find("--mca takes KEY=VALUE, not 'pml'"), std::string::npos);
  }
  s.mca = {"pml=ob1"};
  s.bind = "socket";
  EXPECT_NE(test::error_of([&] { check_harness_settings(s); }).find("--bind takes auto, core, none or launcher"),
            std::string::npos);
  s.bind = "launcher";
  EXPECT_EQ(test::error_of([&] { check_harness_settings(s); }), "");
}

TEST(ArmOrder, EachPairHoldsEveryArmOnceInAnOrderFixedByTheSeed) {
  const Words arms{"off", "on", "mpit_off"};
  std::mt19937_64 a(7), b(7);
  std::set<Words> orders_seen;
  for (int pair = 0; pair < 50; ++pair) {
    Words order = arm_order(arms, a);
    EXPECT_EQ(order, arm_order(arms, b)) << "same seed, same order";
    Words sorted = order;
    std::sort(sorted.begin(), sorted.end());
    EXPECT_EQ(sorted, (Words{"mpit_off", "off", "on"}));
    orders_seen.insert(order);
  }
  // 50 draws of 6 equally likely orders: all 6 appear but with probability < 1e-3 (6 * (5/6)^50).
  EXPECT_EQ(orders_seen.size(), 6u);
}

TEST(Provenance, HarnessConfigurationKeys) {
  // Not Open MPI's launcher: the release and components are those of the ompi_info in PATH, here
  // one that says 9.9.9 and lists pml and coll monitoring.
  const ScratchDirectory dir(std::filesystem::temp_directory_path(), "mpimon-provenance-");
  std::ofstream(dir.path() / "ompi_info") << "#!/bin/sh\n"
                                             "if [ \"$1\" = --version ]; then echo 'Open MPI v9.9.9'; exit 0; fi\n"
                                             "echo 'mca:pml:monitoring:version:\"mca:2.1.0\"'\n"
                                             "echo 'mca:coll:monitoring:version:\"mca:2.1.0\"'\n";
  std::filesystem::permissions(dir.path() / "ompi_info", std::filesystem::perms::owner_all);
  const std::string path = std::getenv("PATH");
  setenv("PATH", (dir.path().string() + ":" + path).c_str(), 1);
  HarnessSettings s;
  s.launcher = "true --provenance-test";  // its --version prints nothing, exit 0
  s.mca = {"pml=ob1", "btl=self"};
  s.monitoring_mode = 2;
  s.seed = 9;
  s.bind = "none";
  auto c = harness_configuration(s);
  Words keys;
  for (const auto& [k, v] : c) keys.push_back(k);
  EXPECT_EQ(keys, (Words{"bind", "cpus", "generator", "host", "launcher", "mca", "monitoring_components",
                         "monitoring_mode", "mpi_library", "open_mpi_version", "seed"}));
  setenv("PATH", path.c_str(), 1);
  EXPECT_EQ(c["open_mpi_version"], "9.9.9");
  EXPECT_EQ(c["monitoring_components"], "coll");  // pml=ob1 in --mca switches the pml's off
  EXPECT_EQ(c["launcher"], "true --provenance-test");
  EXPECT_EQ(c["mca"], "pml=ob1 btl=self");
  EXPECT_EQ(c["monitoring_mode"], "2");
  EXPECT_EQ(c["seed"], "9");
  EXPECT_EQ(c["bind"], "none");
  EXPECT_EQ(c["cpus"], std::to_string(std::thread::hardware_concurrency()));
  EXPECT_EQ(c["generator"].rfind("mpimon ", 0), 0u);
}

TEST(LaunchDirectory, FreshWithAnEmptyProfSubdirectoryAndGoneAfter) {
  std::filesystem::path first;
  {
    const ScratchDirectory a = launch_directory("unit");
    const ScratchDirectory b = launch_directory("unit");
    first = a.path();
    EXPECT_NE(a.path(), b.path());
    EXPECT_TRUE(std::filesystem::is_directory(a.path() / "prof"));
    EXPECT_TRUE(std::filesystem::is_empty(a.path() / "prof"));
    std::filesystem::create_directories(a.path() / "prof" / "leftover");
  }
  EXPECT_FALSE(std::filesystem::exists(first));
}

}  // namespace
}  // namespace mpimon::harness
