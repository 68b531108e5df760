// Unit tests of where mpimon finds its own files (locations.hpp): an installed prefix and a build
// tree, laid out in a scratch directory as install.cmake and the build lay them out.

#include "mpimon/harness/locations.hpp"

#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>

#include "harness_test_util.hpp"

namespace mpimon::harness {
namespace {

namespace fs = std::filesystem;

void touch(const fs::path& path) {
  fs::create_directories(path.parent_path());
  std::ofstream{path};
}

TEST(Locations, InstalledProgramsAreInLibexecAndTheCollectLibraryInLibdir) {
  const test::TempDir dir;
  const fs::path prefix = dir.path() / "moved-prefix";
  touch(prefix / "libexec" / "mpimon" / "mpimon-p2p-ledger");
  touch(prefix / MPIMON_INSTALL_LIBDIR / "libmpimon-collect.so");
  fs::create_directories(prefix / "bin");
  EXPECT_EQ(own_file("mpimon-p2p-ledger", prefix / "bin"), (prefix / "libexec/mpimon/mpimon-p2p-ledger").string());
  EXPECT_EQ(own_file("libmpimon-collect.so", prefix / "bin"),
            (prefix / MPIMON_INSTALL_LIBDIR / "libmpimon-collect.so").string());
}

TEST(Locations, ABuildTreeHasThemInItsFolders) {
  const test::TempDir dir;
  const fs::path build = dir.path() / "build";
  touch(build / "bench" / "mpimon-overhead-bench");
  touch(build / "validation" / "mpimon-workload");
  touch(build / "collect" / "libmpimon-collect.so");
  EXPECT_EQ(own_file("mpimon-overhead-bench", build / "cli"), (build / "bench/mpimon-overhead-bench").string());
  EXPECT_EQ(own_file("mpimon-workload", build / "cli"), (build / "validation/mpimon-workload").string());
  EXPECT_EQ(own_file("libmpimon-collect.so", build / "cli"), (build / "collect/libmpimon-collect.so").string());
}

TEST(Locations, AMissingFileIsNamedWhereItBelongs) {
  const test::TempDir dir;
  EXPECT_EQ(own_file("mpimon-gate-probe", dir.path() / "bin"),
            (dir.path() / "libexec/mpimon/mpimon-gate-probe").string());
}

TEST(Locations, TheTestBinaryFindsItsOwnBuildTreesStagedData) {
  // This test runs from BUILD/harness: the build stages BUILD/share/mpimon (install.cmake).
  EXPECT_EQ(data_directory(), executable_directory().parent_path() / "share" / "mpimon");
  EXPECT_TRUE(fs::exists(data_file("scripts/plot_heatmaps.py"))) << data_file("scripts/plot_heatmaps.py");
  EXPECT_TRUE(fs::exists(data_file("docs/defects.md")));
}

}  // namespace
}  // namespace mpimon::harness
