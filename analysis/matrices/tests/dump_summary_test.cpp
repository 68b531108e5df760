// Unit tests of `mpimon show`'s top talkers (matrix_view.hpp) and missing ranks (dump_summary.hpp). The expected
// pairs are the sums of the E and I lines of the three real dumps the fixture was merged from
// (awk over analysis/tests/data/real/mode2_sample.*.prof).

#include "mpimon/matrices/dump_summary.hpp"
#include "mpimon/matrices/matrix_view.hpp"

#include <gtest/gtest.h>

#include "test_util.hpp"

namespace mpimon {
namespace {

TEST(DumpSummary, TopTalkersAreTheLargestPointToPointPairs) {
  const MatrixFile file(test::data_path("v1/mode2_sample.h5"));
  const auto top = top_talkers(file, file.default_dump(), 4);
  ASSERT_EQ(top.size(), 4U);
  const std::vector<std::vector<std::uint64_t>> expected{
      {0, 1, 5404, 33}, {0, 2, 4364, 23}, {1, 0, 160, 28}, {2, 0, 128, 21}};
  for (std::size_t i = 0; i < top.size(); ++i) {
    EXPECT_EQ((std::vector<std::uint64_t>{top[i].from, top[i].to, top[i].bytes, top[i].messages}), expected[i]) << i;
  }
  EXPECT_EQ(top_talkers(file, file.default_dump(), 100).size(), 6U);
  EXPECT_TRUE(top_talkers(file, file.default_dump(), 0).empty());
}

TEST(DumpSummary, MissingRanksListsTwentyThenCounts) {
  DumpInfo info;
  info.nprocs = 4;
  info.ranks_present = {0, 2};
  EXPECT_EQ(missing_ranks(info), "1, 3");
  info.nprocs = 30;
  info.ranks_present = {0, 1, 2, 3, 4};
  EXPECT_EQ(missing_ranks(info),
            "5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16, 17, 18, 19, 20, 21, 22, 23, 24 and 5 more");
}

}  // namespace
}  // namespace mpimon
