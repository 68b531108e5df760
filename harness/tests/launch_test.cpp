// Unit tests of launching: the launch lines built for Open MPI's launcher and for another one, and
// how a child's end (exit code, signal, timeout) is read. Expected values are written from the
// rules in docs/overhead.md and launch.hpp, not printed by the code.

#include "mpimon/harness/launch.hpp"

#include <gtest/gtest.h>

#include <chrono>
#include <filesystem>
#include <fstream>
#include <vector>

#include "harness_test_util.hpp"
#include "mpimon/base/scratch.hpp"

namespace mpimon::harness {
namespace {

using Words = std::vector<std::string>;

TEST(MpiLaunch, OpenMpiLineHasLauncherNpOptionsMcaProgramInOrder) {
  MpiLaunch l("mpirun", 4);
  l.option({"--bind-to", "core"}).mca("btl", "tcp,self").program("/opt/bench", {"--ops", "send"});
  EXPECT_TRUE(l.open_mpi());
  EXPECT_EQ(l.argv(), (Words{"mpirun", "-np", "4", "--bind-to", "core", "--mca", "btl", "tcp,self", "/opt/bench",
                             "--ops", "send"}));
  // Environment first (sorted by name), as a user would type it.
  EXPECT_EQ(l.text(),
            "OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 OMPI_MCA_rmaps_base_oversubscribe=1 "
            "PRTE_MCA_rmaps_default_mapping_policy=:oversubscribe "
            "mpirun -np 4 --bind-to core --mca btl tcp,self /opt/bench --ops send");
}

TEST(MpiLaunch, MpiexecByPathIsOpenMpi) {
  EXPECT_TRUE(is_open_mpi_launcher("/usr/bin/mpiexec"));
  EXPECT_TRUE(is_open_mpi_launcher("orterun --host a"));
  EXPECT_FALSE(is_open_mpi_launcher("srun --mpi=pmix"));
  EXPECT_FALSE(is_open_mpi_launcher("mpirun.mpich"));
}

// srun(1): -n/--ntasks is the task count (srun reads "-np 2" as "-n p", an invalid number); the
// environment is exported by default; --export=ALL,VAR=VALUE adds VAR to the tasks' environment.
TEST(MpiLaunch, SrunGetsItsTaskCountAndMcaAsEnvironmentVariables) {
  MpiLaunch l("srun --mpi=pmix", 2);
  l.mca("pml_monitoring_enable", "1").program("a.out");
  EXPECT_FALSE(l.open_mpi());
  EXPECT_EQ(launcher_kind("/usr/bin/srun -N 2"), LauncherKind::slurm);
  EXPECT_EQ(l.argv(), (Words{"srun", "--mpi=pmix", "-n", "2", "a.out"}));
  EXPECT_EQ(l.text(), "OMPI_MCA_pml_monitoring_enable=1 srun --mpi=pmix -n 2 a.out");
}

TEST(MpiLaunch, SrunExportsTheRanksVariablesInOneOptionBeforeTheProgram) {
  MpiLaunch l("srun", 4);
  l.environment("LD_PRELOAD", "/lib/x.so").environment("MPIMON_A", "1").environment("LIST", "a,b");
  l.program("a.out", {"-v"});
  // No -x (Open MPI's): the variables reach the tasks alone, never srun itself (an LD_PRELOAD would
  // load into srun); a value with a comma, which --export cannot carry, goes to srun's environment.
  EXPECT_EQ(l.argv(), (Words{"srun", "-n", "4", "--export=ALL,LD_PRELOAD=/lib/x.so,MPIMON_A=1", "a.out", "-v"}));
  EXPECT_EQ(l.text(), "LIST=a,b srun -n 4 --export=ALL,LD_PRELOAD=/lib/x.so,MPIMON_A=1 a.out -v");
  MpiLaunch o("mpirun", 2);
  o.environment("LD_PRELOAD", "/lib/x.so").program("a.out");
  EXPECT_EQ(o.argv(), (Words{"mpirun", "-np", "2", "-x", "LD_PRELOAD=/lib/x.so", "a.out"}));
}

TEST(MpiLaunch, AnotherLauncherKeepsNpAndGetsTheRestAsVariables) {
  MpiLaunch l("mpiexec.hydra", 2);
  l.mca("btl", "self").environment("A", "1").bind(true).oversubscribe().program("a.out");
  EXPECT_EQ(launcher_kind("mpiexec.hydra"), LauncherKind::other);
  EXPECT_EQ(l.argv(), (Words{"mpiexec.hydra", "-np", "2", "a.out"}));
  EXPECT_EQ(l.text(), "A=1 OMPI_MCA_btl=self mpiexec.hydra -np 2 a.out");
}

TEST(MpiLaunch, EmptyLauncherIsAnInputError) {
  EXPECT_NE(test::error_of([] { MpiLaunch("  ", 2); }).find("empty launcher"), std::string::npos);
  EXPECT_EQ(split_words(" a  b\tc "), (Words{"a", "b", "c"}));
}

// ompi_info beside the launcher decides, from its "mca:FRAMEWORK:monitoring:version" lines only.
TEST(LauncherVersion, MonitoringComponentsFromTheOmpiInfoBesideTheLauncher) {
  const ScratchDirectory dir(std::filesystem::temp_directory_path(), "mpimon-ompi-info-");
  const auto info = dir.path() / "ompi_info";
  std::ofstream(info) << "#!/bin/sh\n"
                         "echo 'mca:pml:monitoring:version:\"mca:2.1.0\"'\n"
                         "echo 'mca:pml:monitoring:version:\"component:4.1.4\"'\n"
                         "echo 'mca:coll:monitoring:version:\"mca:2.1.0\"'\n"
                         "echo 'mca:osc:rdma:version:\"mca:2.1.0\"'\n"
                         "echo 'mca:btl:monitoring:version:\"mca:2.1.0\"'\n";
  std::filesystem::permissions(info, std::filesystem::perms::owner_all);
  EXPECT_EQ(installed_monitoring_components((dir.path() / "mpirun").string() + " --host a"), (Words{"coll", "pml"}));
  EXPECT_TRUE(installed_monitoring_components((dir.path() / "nothing" / "mpirun").string()).empty());
  // srun runs whatever the program links: the ompi_info found in PATH speaks for it.
  const std::string path = std::getenv("PATH");
  setenv("PATH", (dir.path().string() + ":" + path).c_str(), 1);
  EXPECT_EQ(installed_monitoring_components("srun --mpi=pmix -N 2"), (Words{"coll", "pml"}));
  setenv("PATH", path.c_str(), 1);
}

TEST(LauncherVersion, ReleaseAndSeriesOfOpenMpiLines) {
  EXPECT_EQ(open_mpi_release("mpirun (Open MPI) 4.1.4"), "4.1.4");
  EXPECT_EQ(open_mpi_release("mpirun (Open MPI) 5.0.7rc1"), "5.0.7rc1");
  EXPECT_EQ(open_mpi_release("HYDRA build details:"), "");
  EXPECT_EQ(release_series("4.1.4"), "4.1");
  EXPECT_EQ(release_series("5.0.7rc1"), "5.0");
  EXPECT_EQ(release_series("5"), "5");
}

TEST(RunProcess, ExitCodeAndInterleavedOutput) {
  LaunchResult r = run_process({"sh", "-c", "echo out; echo err >&2; exit 3"}, {}, std::chrono::seconds(30));
  EXPECT_EQ(r.exit_code, 3);
  EXPECT_FALSE(r.timed_out);
  EXPECT_EQ(r.output, "out\nerr\n");
}

TEST(RunProcess, EnvironmentAndDirectoryReachTheChild) {
  test::TempDir dir;
  LaunchResult r = run_process({"sh", "-c", "printf '%s %s' \"$MPIMON_X\" \"$(pwd -P)\""}, {{"MPIMON_X", "42"}},
                               std::chrono::seconds(30), dir.path().string());
  EXPECT_EQ(r.exit_code, 0);
  EXPECT_EQ(r.output, "42 " + std::filesystem::canonical(dir.path()).string());
}

TEST(RunProcess, KilledBySignalIs128PlusSignal) {
  LaunchResult r = run_process({"sh", "-c", "kill -TERM $$"}, {}, std::chrono::seconds(30));
  EXPECT_EQ(r.exit_code, 128 + 15);
  EXPECT_FALSE(r.timed_out);
}

TEST(RunProcess, TimeoutKillsTheWholeProcessGroup) {
  // The grandchild (sleep) holds the output pipe open: only killing the group ends the read.
  LaunchResult r = run_process({"sh", "-c", "sleep 60 & sleep 60"}, {}, std::chrono::seconds(1));
  EXPECT_TRUE(r.timed_out);
  EXPECT_EQ(r.exit_code, 128 + 9);
}

TEST(RunProcess, MissingProgramIsExitCode127) {
  LaunchResult r = run_process({"mpimon-no-such-program"}, {}, std::chrono::seconds(30));
  EXPECT_EQ(r.exit_code, 127);
  EXPECT_NE(r.output.find("cannot run mpimon-no-such-program"), std::string::npos);
}

}  // namespace
}  // namespace mpimon::harness
