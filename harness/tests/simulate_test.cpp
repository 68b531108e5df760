// What mpimon simulate reads of SMPI's output: -map lines, the simulated time and the --smpi
// settings (harness/include/mpimon/harness/simulate.hpp); its Paje trace: paje_trace_test.cpp.

#include <gtest/gtest.h>

#include <string>

#include "mpimon/harness/simulate.hpp"
#include "test_util.hpp"

namespace mpimon::harness {
namespace {

TEST(SmpiOutput, MapLinesAndSimulatedTime) {
  const std::string output =
      "[0.000000] [smpi/INFO] [rank 0] -> node1\n[0.000000] [smpi/INFO] [rank 2] -> node0\n"
      "[0.089321] [smpi_utils/INFO] Simulated time: 0.0893207 seconds. \n";
  EXPECT_EQ(parse_rank_map(output, 3), (std::vector<std::string>{"node1", "", "node0"}));
  ASSERT_TRUE(parse_simulated_time(output).has_value());
  EXPECT_DOUBLE_EQ(*parse_simulated_time(output), 0.0893207);
  EXPECT_FALSE(parse_simulated_time("no time here").has_value());
}

TEST(SmpiSettings, KeyValue) {
  EXPECT_EQ(parse_smpi_setting("smpi/reduce=ompi_binary"),
            (std::pair<std::string, std::string>{"smpi/reduce", "ompi_binary"}));
  for (const char* bad : {"smpi/reduce", "=x", "a b=c", "smpi/reduce=a b"}) {
    EXPECT_NE(test::error_of([&] { parse_smpi_setting(bad); }).find("--smpi takes KEY=VALUE"), std::string::npos)
        << bad;
  }
}

}  // namespace
}  // namespace mpimon::harness
