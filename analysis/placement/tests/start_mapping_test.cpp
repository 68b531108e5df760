// --start-mapping: the method `given` and read_mapping. Expected costs are worked by hand on
// 2 nodes x 2 cores ("tleaf 2 2 10 2 1": leaves {0, 1} and {2, 3}, cost 1 within a node, 11 across).
#include <gtest/gtest.h>

#include <string>

#include "mpimon/base/error.hpp"
#include "mpimon/placement/placement.hpp"
#include "test_util.hpp"

namespace mpimon {
namespace {

const TreeTopology& two_by_two() {
  static const TreeTopology t = parse_topology("tleaf 2 2 10 2 1");
  return t;
}

// 0-1: 5, 0-2: 3, 2-3: 7, 1-3: 1.
AffinityGraph four_ranks() {
  const std::vector<std::uint64_t> m = {0, 5, 3, 0, 0, 0, 0, 1, 0, 0, 0, 7, 0, 0, 0, 0};
  return fold_traffic(SparseMatrix::from_dense(4, 4, m));
}

const MethodResult& row(const std::vector<MethodResult>& rows, const std::string& method) {
  for (const auto& r : rows) {
    if (r.method == method) return r;
  }
  throw std::runtime_error("no row " + method);
}

// Ranks 0..3 on leaves 0, 2, 1, 3: 0-1 across (5 x 11), 0-2 within (3 x 1), 2-3 across (7 x 11),
// 1-3 within (1 x 1) = 55 + 3 + 77 + 1 = 136. The optimum pairs {0, 1} and {2, 3}: 5 + 7 + 3 x 11
// + 1 x 11 = 56; refine, started from the given mapping, must reach it.
TEST(PlacementStartMapping, GivenIsCostedAsItIsAndRefineImprovesIt) {
  const auto graph = four_ranks();
  PlacementRequest request;
  request.methods = {"given", "refine"};
  request.start = {0, 2, 1, 3};
  const auto rows = place(graph, graph, two_by_two(), request);
  ASSERT_EQ(rows.size(), 2u);
  EXPECT_EQ(rows[0].mapping, (Mapping{0, 2, 1, 3}));
  EXPECT_EQ(static_cast<std::uint64_t>(rows[0].metrics.cost), 136u);
  EXPECT_TRUE(rows[0].repaired_ranks.empty());
  EXPECT_EQ(rows[1].started_from, "given");
  EXPECT_EQ(static_cast<std::uint64_t>(rows[1].metrics.cost), 56u);
}

// With a start mapping, refine improves it alone (no other mapper is run for it); without one, the
// default list leaves `given` out and asking for it is a usage error.
TEST(PlacementStartMapping, RefineStartsFromGivenAndGivenNeedsAMapping) {
  const auto graph = four_ranks();
  PlacementRequest request;
  request.methods = {"refine"};
  request.start = {0, 2, 1, 3};
  const auto rows = place(graph, graph, two_by_two(), request);
  ASSERT_EQ(rows.size(), 1u);
  EXPECT_EQ(rows[0].started_from, "given");
  PlacementRequest none;
  none.methods = {"packed", "given"};
  EXPECT_NE(test::error_of([&] { place(graph, graph, two_by_two(), none); }).find("needs --start-mapping"),
            std::string::npos);
  none.methods.clear();
  for (const auto& r : place(graph, graph, two_by_two(), none)) EXPECT_NE(r.method, "given");
  PlacementRequest short_start;
  short_start.start = {0, 1};
  EXPECT_THROW(place(graph, graph, two_by_two(), short_start), Error);
}

// Ranks 0 and 1 both on leaf 0: rank 1 moves to the free leaf nearest its peers. 0-1: 1, 1-2: 9,
// rank 2 on leaf 2. Leaf 1: 1 x 1 + 9 x 11 = 100; leaf 3: 1 x 11 + 9 x 1 = 20: leaf 3, cost 20.
TEST(PlacementStartMapping, SharedLeavesAreRepairedAndListed) {
  const std::vector<std::uint64_t> m = {0, 1, 0, 0, 0, 9, 0, 0, 0};
  const auto graph = fold_traffic(SparseMatrix::from_dense(3, 3, m));
  test::TempDir dir;
  const std::string file = dir.write("start.map", "# from somewhere\n0 0\n\n1 0\n2 2\n");
  PlacementRequest request;
  request.methods = {"given"};
  request.start = read_mapping(file, 3, two_by_two());
  EXPECT_EQ(request.start, (Mapping{0, 0, 2}));
  const auto rows = place(graph, graph, two_by_two(), request);
  EXPECT_EQ(row(rows, "given").mapping, (Mapping{0, 3, 2}));
  EXPECT_EQ(static_cast<std::uint64_t>(row(rows, "given").metrics.cost), 20u);
  EXPECT_EQ(row(rows, "given").repaired_ranks, (std::vector<std::uint32_t>{1}));
  EXPECT_NE(row(rows, "given").note.find("repaired 1 of 3 ranks"), std::string::npos);
}

// With --slots-per-leaf 2 the file names cores: two ranks on core 1 take its slots 2 and 3.
TEST(PlacementStartMapping, CoresWithSlots) {
  test::TempDir dir;
  const TreeTopology t = with_slots(two_by_two(), 2);
  EXPECT_EQ(read_mapping(dir.write("s.map", "0 1\n1 1\n2 3\n"), 3, t), (Mapping{2, 3, 6}));
}

// Every bad file is a usage error naming the file and the line.
TEST(PlacementStartMapping, BadFilesNameFileAndLine) {
  test::TempDir dir;
  auto error = [&](const std::string& text) {
    const std::string file = dir.write("bad.map", text);
    try {
      read_mapping(file, 3, two_by_two());
    } catch (const Error& e) {
      EXPECT_EQ(e.kind(), Error::Kind::usage) << e.what();
      return std::string(e.what()).substr(file.size());
    }
    return std::string("no error");
  };
  EXPECT_EQ(error("0 0\n1 x\n2 2\n").rfind(":2: expected 'RANK LEAF'", 0), 0u);
  EXPECT_EQ(error("0 0\n1 1 1\n").rfind(":2: expected 'RANK LEAF'", 0), 0u);
  EXPECT_EQ(error("0 0\n-1 1\n").rfind(":2: expected 'RANK LEAF'", 0), 0u);
  EXPECT_EQ(error("0 0\n1 1\n3 2\n"), ":3: rank 3 out of range (the dump has 3 ranks)");
  EXPECT_EQ(error("0 0\n1 4\n2 2\n"), ":2: leaf 4 out of range (the tree has 4 leaves)");
  EXPECT_EQ(error("0 0\n1 1\n0 2\n"), ":3: rank 0 given twice (first on line 1)");
  EXPECT_EQ(error("0 0\n"), ": 2 of 3 ranks have no line: 1, 2");
  EXPECT_NE(test::error_of([] { read_mapping("/nonexistent/start.map", 3, two_by_two()); }).find("cannot read"),
            std::string::npos);
}

}  // namespace
}  // namespace mpimon
