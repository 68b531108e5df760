// Unit tests of what `mpimon plot` does besides parsing and printing: the collective's table and
// title (expected values worked out by hand from the basic linear broadcast, where the root sends
// the whole buffer to every other rank), and the runs of a script (a shell script stands in for
// Python); what mpimon report takes a JSON input for.

#include "mpimon/harness/plots.hpp"

#include <gtest/gtest.h>

#include <filesystem>

#include "harness_test_util.hpp"
#include "mpimon/harness/report_data.hpp"

namespace mpimon::harness {
namespace {

// basic_linear (1) on 3 processes from root 1, two 4-byte elements.
CollectiveSpec linear_bcast() {
  return {.op = CollectiveOp::bcast, .algorithm = 1, .nprocs = 3, .root = 1, .count = 2, .type_size = 4};
}

TEST(Plots, CollectiveTableHasBothViewsOfTheLinearBroadcast) {
  EXPECT_EQ(collective_heatmap_table(linear_bcast(), Metric::bytes),
            "size\t3\n"
            "panel\tpml\tbytes\tPML monitoring (E + I): what bcast basic_linear sends\n"
            "panel\tpmpi\tbytes\tPMPI level: what the MPI_Bcast call says\n"
            "cell\tpml\t1\t0\t8\ncell\tpml\t1\t2\t8\n"
            "cell\tpmpi\t1\t0\t8\ncell\tpmpi\t1\t2\t8\n");
  // One message to each other rank, in both views.
  EXPECT_EQ(collective_heatmap_table(linear_bcast(), Metric::count),
            "size\t3\n"
            "panel\tpml\tmessages\tPML monitoring (E + I): what bcast basic_linear sends\n"
            "panel\tpmpi\tmessages\tPMPI level: what the MPI_Bcast call says\n"
            "cell\tpml\t1\t0\t1\ncell\tpml\t1\t2\t1\n"
            "cell\tpmpi\t1\t0\t1\ncell\tpmpi\t1\t2\t1\n");
}

TEST(Plots, CollectiveTitleSaysCallAlgorithmProcessesRootAndSize) {
  EXPECT_EQ(collective_heatmap_title(linear_bcast()), "MPI_Bcast, coll/tuned basic_linear, 3 processes, root 1, 8 B");
  CollectiveSpec barrier;
  barrier.op = CollectiveOp::barrier;
  barrier.algorithm = 1;
  barrier.nprocs = 4;
  EXPECT_EQ(collective_heatmap_title(barrier).find(" B"), std::string::npos);
  EXPECT_EQ(mpi_call_name(CollectiveOp::allreduce), "MPI_Allreduce");
}

TEST(Plots, ScriptOutputReturnedAndItsInputGoneAfter) {
  const test::TempDir dir;
  const std::string script = dir.write("show.sh", "cat \"$1\"; echo \" $2\"\n");
  std::string input_path;
  {
    const TemporaryFile input = script_input("the data", "unit");
    input_path = input.path();
    EXPECT_EQ(run_plot_script("/bin/sh", script, {input.path(), "--flag"}, std::chrono::seconds(30)),
              "the data --flag\n");
  }
  EXPECT_FALSE(std::filesystem::exists(input_path));
}

TEST(Plots, AFailingOrMissingScriptIsAnErrorNamingIt) {
  const test::TempDir dir;
  const std::string script = dir.write("fail.sh", "echo no matplotlib; exit 3\n");
  const std::string message = test::error_of([&] { run_plot_script("/bin/sh", script, {}, std::chrono::seconds(30)); });
  EXPECT_NE(message.find(script + ": failed (exit code 3;"), std::string::npos) << message;
  EXPECT_NE(message.find("python3-matplotlib"), std::string::npos) << message;
  EXPECT_NE(message.find("no matplotlib"), std::string::npos) << message;
  const std::string missing = dir.file("missing.py");
  EXPECT_EQ(test::error_of([&] { run_plot_script("/bin/sh", missing, {}, std::chrono::seconds(30)); }),
            missing + ": plot script not found");
}

// mpimon report tells its JSON inputs apart by what they hold, and names a file it cannot read.
TEST(ReportInputs, JsonKindFromTheContent) {
  const test::TempDir dir;
  EXPECT_EQ(report_json_kind(dir.write("v.json", "{\"generator\": \"mpimon\", \"cases\": []}\n")), "validate");
  EXPECT_EQ(report_json_kind(dir.write("p.json", "  {\"format\": \"mpimon-placement\", \"methods\": []}")), "place");
  const std::string other = dir.write("o.json", "{\"format\": \"mpimon-gate-report\"}");
  EXPECT_EQ(test::error_of([&] { report_json_kind(other); }),
            other + ": neither mpimon validate --json nor mpimon place --json output");
  const std::string csv = dir.write("pairs.csv", "off,on\n1,2\n");
  EXPECT_EQ(test::error_of([&] { report_json_kind(csv); }),
            csv + ": neither HDF5 nor a JSON object (mpimon validate --json, mpimon place --json)");
  const std::string cut = dir.write("cut.json", "{\n  \"cases\": [\n");
  EXPECT_EQ(test::error_of([&] { report_json_kind(cut); }).rfind(cut + ":3: not JSON: syntax error", 0), 0u);
}

}  // namespace
}  // namespace mpimon::harness
