#include <gtest/gtest.h>

#include <sstream>

#include "mpimon/matrices/export.hpp"
#include "mpimon/matrices/merge.hpp"
#include "test_util.hpp"

namespace mpimon {
namespace {

using test::error_of;
using test::read_text;
using test::TempDir;

TEST(TreeMatch, FoldsBothDirectionsAndZeroesTheDiagonal) {
  // 0 sends 5 to 1 and 2 to itself, 1 sends 3 to 0, 2 sends 10 to 0.
  SparseMatrix a = SparseMatrix::from_dense(3, 3, std::vector<std::uint64_t>{2, 5, 0, 3, 0, 0, 10, 0, 0});
  std::ostringstream out;
  write_treematch(a, out);
  EXPECT_EQ(out.str(), "0 8 10\n8 0 0\n10 0 0\n");
}

TEST(TreeMatch, RefusesValuesDoublesCannotHold) {
  SparseMatrix a = SparseMatrix::from_dense(2, 2, std::vector<std::uint64_t>{0, 1ull << 52, 1ull << 52, 0});
  std::ostringstream out;
  EXPECT_EQ(error_of([&] { write_treematch(a, out); }),
            "entry (0, 1) reaches 2^53, which TreeMatch cannot read exactly; use --metric count");
}

// Expected text worked out by hand from profile2mat's rules: each cell is (a_ij + a_ji) / 2
// printed with "%.0f" (so 2.5 prints as 2), one trailing space per value.
TEST(Profile2mat, HalvesAndRoundsLikePerl) {
  TempDir dir;
  const std::string tail = "# OSC\n# COLLECTIVES\n";
  auto f0 = dir.write("run.0.prof", "# POINT TO POINT\nE\t0\t1\t3 bytes\t1 msgs sent\n" + tail);
  auto f1 = dir.write("run.1.prof", "# POINT TO POINT\nE\t1\t0\t2 bytes\t2 msgs sent\n" + tail);
  merge_prof_files({f0, f1}, dir.file("m.h5"), {});
  MatrixFile file(dir.file("m.h5"));
  auto written = write_profile2mat(file, "run", dir.path().string());
  std::vector<std::string> expected;
  for (const char* suffix : {"all", "external"}) {
    for (const char* metric : {"size", "msg", "avg"}) {
      expected.push_back(dir.file(std::string("run_") + metric + "_" + suffix + ".mat"));
    }
  }
  EXPECT_EQ(written, expected);
  EXPECT_EQ(read_text(dir.file("run_size_all.mat")), "0 2 \n2 0 \n");  // (3+2)/2 = 2.5 -> 2
  EXPECT_EQ(read_text(dir.file("run_msg_all.mat")), "0 2 \n2 0 \n");   // (1+2)/2 = 1.5 -> 2
  EXPECT_EQ(read_text(dir.file("run_avg_all.mat")), "0 2 \n2 0 \n");   // 2.5 / 1.5 = 1.67 -> 2
  EXPECT_EQ(read_text(dir.file("run_size_external.mat")), "0 2 \n2 0 \n");
}

TEST(Profile2mat, NamesFollowTheFirstSubstitution) {
  TempDir dir;
  auto f0 = dir.write("my_size.0.prof", "# POINT TO POINT\n# OSC\n# COLLECTIVES\nC\t0\t0\t1 bytes\t1 msgs sent\n");
  merge_prof_files({f0}, dir.file("m.h5"), {});
  MatrixFile file(dir.file("m.h5"));
  // No E line: only the "all" pass runs. profile2mat's s/_size/_msg/ hits the dump name first.
  auto written = write_profile2mat(file, "my_size", dir.path().string());
  EXPECT_EQ(written, (std::vector<std::string>{dir.file("my_size_size_all.mat"), dir.file("my_msg_size_all.mat"),
                                               dir.file("my_avg_size_all.mat")}));
  EXPECT_EQ(read_text(dir.file("my_size_size_all.mat")), "1 \n");
}

}  // namespace
}  // namespace mpimon
