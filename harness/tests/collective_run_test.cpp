// Unit tests of `mpimon validate collective`'s runs (collective_run.hpp) without mpirun: the MCA
// settings that force an algorithm (Open MPI's coll_tuned parameter names), the launch lines, the
// texts, and the checks made before anything runs.

#include "mpimon/harness/collective_run.hpp"

#include <gtest/gtest.h>

#include <algorithm>

#include "harness_test_util.hpp"

namespace mpimon::harness {
namespace {

using Settings = std::vector<std::pair<std::string, std::string>>;

CollectiveSpec bcast_spec() {
  CollectiveSpec s;
  s.op = CollectiveOp::bcast;
  s.algorithm = 6;  // binomial
  s.nprocs = 4;
  s.root = 1;
  s.count = 8;
  s.type_size = 4;
  s.segment_size = 16;
  s.monitoring_mode = 1;
  return s;
}

TEST(CollectiveRun, ForcedAlgorithmSettings) {
  const Settings expected{{"pml_monitoring_enable", "1"},
                          {"pml_monitoring_enable_output", "3"},
                          {"pml_monitoring_filename", "/d/measured"},
                          {"coll_tuned_use_dynamic_rules", "1"},
                          {"coll_tuned_bcast_algorithm", "6"},
                          {"coll_tuned_bcast_algorithm_segmentsize", "16"},
                          {"coll_tuned_bcast_algorithm_tree_fanout", "4"},
                          {"coll_tuned_bcast_algorithm_chain_fanout", "4"},
                          {"coll_tuned_bcast_algorithm_knomial_radix", "4"}};
  EXPECT_EQ(collective_mca(bcast_spec(), "/d/measured"), expected);
  CollectiveSpec barrier;
  barrier.op = CollectiveOp::barrier;
  const auto mca = collective_mca(barrier, "/d/b");
  EXPECT_EQ(std::count_if(mca.begin(), mca.end(),
                          [](const auto& kv) { return kv.first.find("segmentsize") != std::string::npos; }),
            0);
}

TEST(CollectiveRun, TheControlRunSkipsTheCollective) {
  CollectiveRun run;
  run.program = "/p/run-collective";
  run.force_oversubscribe = true;
  const auto measured = collective_launch(bcast_spec(), run, "/d/m", false).argv();
  const auto control = collective_launch(bcast_spec(), run, "/d/c", true).argv();
  EXPECT_EQ(std::vector<std::string>(measured.begin(), measured.begin() + 4),
            (std::vector<std::string>{"mpirun", "-np", "4", "--oversubscribe"}));
  const std::vector<std::string> tail{"/p/run-collective", "--op", "bcast",  "--count", "8",
                                      "--type-size",       "4",    "--root", "1"};
  EXPECT_TRUE(std::equal(tail.begin(), tail.end(), measured.end() - static_cast<long>(tail.size())));
  EXPECT_EQ(control.back(), "--skip");
  EXPECT_EQ(control.size(), measured.size() + 1);
}

TEST(CollectiveRun, Texts) {
  EXPECT_EQ(describe(bcast_spec()), "bcast binomial, 4 processes, root 1, 8 x 4 B, segments of 16 B, mode 1");
  EdgeDifference d{{TrafficClass::internal, 0, 3}, {8, 1}, {0, 0}};
  EXPECT_EQ(difference_lines({d}), std::vector<std::string>{"I 0->3: predicted 8 B in 1 msgs, recorded 0 B in 0 msgs"});
}

TEST(CollectiveRun, LauncherAndProgramAreCheckedBeforeAnyRun) {
  EXPECT_TRUE(found_in_path("sh"));
  EXPECT_FALSE(found_in_path("mpimon-no-such-launcher"));
  CollectiveRun run;
  run.launcher = "mpimon-no-such-launcher";
  run.program = "/bin/true";
  EXPECT_EQ(test::error_of([&] { record_collective(bcast_spec(), run); }),
            "mpimon-no-such-launcher: not found: install Open MPI (openmpi-bin) or name the launcher with --launcher");
  run.launcher = "sh";
  run.program = "/nonexistent/run-collective";
  EXPECT_EQ(test::error_of([&] { record_collective(bcast_spec(), run); }),
            "/nonexistent/run-collective: not an executable; build mpimon-run-collective or give --program");
}

}  // namespace
}  // namespace mpimon::harness
