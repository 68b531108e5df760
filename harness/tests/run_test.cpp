// `mpimon run`'s command lines (harness/include/mpimon/harness/run.hpp): what each kind of launcher
// gets so that its processes have the reorder library, and the usage errors. No launch.
#include <gtest/gtest.h>

#include <cstdlib>

#include "harness_test_util.hpp"
#include "mpimon/base/error.hpp"
#include "mpimon/harness/run.hpp"

namespace mpimon::harness {
namespace {

using Words = std::vector<std::string>;

struct Library {
  test::TempDir dir;
  std::string path = dir.write("libmpimon-reorder.so", "");
  Library() { setenv("MPIMON_REORDER_LIBRARY", path.c_str(), 1); }
  ~Library() { unsetenv("MPIMON_REORDER_LIBRARY"); }
};

TEST(RunCommandLine, OpenMpiLaunchersGetExportedVariables) {
  Library lib;
  RunSettings s;
  s.command = {"/opt/bin/mpirun", "-np", "4", "./app", "-x"};
  s.reorder = true;
  s.verbose = true;
  const PreparedRun r = prepare_run(s);
  EXPECT_EQ(r.argv, (Words{"/opt/bin/mpirun", "-x", "LD_PRELOAD=" + lib.path, "-x", "MPIMON_REORDER_VERBOSE=1", "-np",
                           "4", "./app", "-x"}));
  EXPECT_TRUE(r.environment.empty());
}

TEST(RunCommandLine, TheUsersPreloadIsKeptAfterTheLibrary) {
  Library lib;
  RunSettings s;
  s.command = {"mpiexec", "-n", "2", "-x", "LD_PRELOAD=/x/libtool.so", "./app"};
  s.reorder = true;
  EXPECT_EQ(prepare_run(s).argv,
            (Words{"mpiexec", "-x", "LD_PRELOAD=" + lib.path + ":/x/libtool.so", "-n", "2", "./app"}));
}

TEST(RunCommandLine, SrunAndOtherCommands) {
  Library lib;
  RunSettings s;
  s.command = {"srun", "-n", "4", "./app"};
  s.reorder = true;
  s.time_limit = 2.5;
  EXPECT_EQ(
      prepare_run(s).argv,
      (Words{"srun", "--export=ALL,LD_PRELOAD=" + lib.path + ",MPIMON_REORDER_TIME_LIMIT=2.5", "-n", "4", "./app"}));
  s.command = {"./my-launcher.sh", "4"};
  const PreparedRun other = prepare_run(s);
  EXPECT_EQ(other.argv, s.command);
  EXPECT_EQ(other.environment.at("LD_PRELOAD"), lib.path);
  EXPECT_EQ(other.environment.at("MPIMON_REORDER_TIME_LIMIT"), "2.5");
  EXPECT_EQ(other.text().rfind("LD_PRELOAD=" + lib.path + " MPIMON_REORDER_TIME_LIMIT=2.5 ./my-launcher.sh 4", 0), 0u)
      << other.text();
}

TEST(RunCommandLine, PlanIsAnAbsolutePathForTheRanks) {
  Library lib;
  RunSettings s;
  s.command = {"srun", "-n", "4", "./app"};
  s.reorder = true;
  s.plan = lib.dir.file("app.rf");
  EXPECT_EQ(
      prepare_run(s).argv,
      (Words{"srun", "--export=ALL,LD_PRELOAD=" + lib.path + ",MPIMON_REORDER_PLAN=" + s.plan, "-n", "4", "./app"}));
  s.reorder = false;
  EXPECT_NE(test::error_of([&] { prepare_run(s); }).find("add --reorder"), std::string::npos);
  s.reorder = true;
  s.plan = lib.dir.file("no/such/dir/app.rf");
  EXPECT_NE(test::error_of([&] { prepare_run(s); }).find("no/such/dir"), std::string::npos);
}

TEST(RunCommandLine, WithoutReorderTheCommandIsUnchanged) {
  RunSettings s;
  s.command = {"mpirun", "-np", "2", "./app"};
  EXPECT_EQ(prepare_run(s).argv, s.command);
}

TEST(RunCommandLine, UsageAndInputErrors) {
  Library lib;
  RunSettings s;
  EXPECT_NE(test::error_of([&] { prepare_run(s); }).find("no command to run"), std::string::npos);
  s.command = {"mpirun", "./app"};
  s.verbose = true;
  EXPECT_NE(test::error_of([&] { prepare_run(s); }).find("add --reorder"), std::string::npos);
  s.reorder = true;
  s.topology = lib.dir.file("missing.xml");
  EXPECT_NE(test::error_of([&] { prepare_run(s); }).find("--topology " + s.topology + ": no such file"),
            std::string::npos);
  s.topology.clear();
  s.stats = lib.dir.file("no/such/dir/stats.json");
  EXPECT_NE(test::error_of([&] { prepare_run(s); }), "");
  s.stats.clear();
  setenv("MPIMON_REORDER_LIBRARY", lib.dir.file("gone.so").c_str(), 1);
  EXPECT_NE(test::error_of([&] { prepare_run(s); }).find("MPIMON_REORDER_LIBRARY"), std::string::npos);
}

}  // namespace
}  // namespace mpimon::harness
