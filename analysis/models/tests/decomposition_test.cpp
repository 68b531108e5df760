#include <gtest/gtest.h>

#include <map>
#include <set>

#include "mpimon/models/decomposition.hpp"

namespace mpimon {
namespace {

TEST(Decomposition, BlockRangesByHand) {
  // 10 points over 3 parts: 4, 3, 3.
  EXPECT_EQ(block_range(10, 3, 0), (Range{0, 4}));
  EXPECT_EQ(block_range(10, 3, 1), (Range{4, 3}));
  EXPECT_EQ(block_range(10, 3, 2), (Range{7, 3}));
  EXPECT_EQ(block_range(4, 4, 3), (Range{3, 1}));
}

TEST(Decomposition, BlockRangesTileTheLine) {
  for (int n = 1; n <= 40; ++n) {
    for (int parts = 1; parts <= n; ++parts) {
      int next = 0;
      for (int p = 0; p < parts; ++p) {
        const Range r = block_range(n, parts, p);
        EXPECT_EQ(r.begin, next) << n << " over " << parts;
        EXPECT_TRUE(r.size == n / parts || r.size == n / parts + 1);
        next += r.size;
      }
      EXPECT_EQ(next, n);
    }
  }
}

TEST(Decomposition, ProcessGridIsRowMajorLikeMpiCart) {
  const ProcessGrid g{{2, 3, 4}, {false, false, false}};
  EXPECT_EQ(g.size(), 24);
  EXPECT_EQ(g.coords(5), (Vec3{0, 1, 1}));  // 5 = (0 * 3 + 1) * 4 + 1
  EXPECT_EQ(g.coords(23), (Vec3{1, 2, 3}));
  for (int r = 0; r < g.size(); ++r) EXPECT_EQ(g.rank(g.coords(r)), r);
}

TEST(Decomposition, NeighboursWrapOnlyWhenPeriodic) {
  const ProcessGrid open{{2, 3, 1}, {false, false, false}};
  EXPECT_EQ(open.neighbour(0, {-1, 0, 0}), -1);
  EXPECT_EQ(open.neighbour(0, {1, 0, 0}), 3);
  EXPECT_EQ(open.neighbour(0, {0, 0, 1}), -1);
  const ProcessGrid torus{{2, 3, 1}, {true, true, true}};
  EXPECT_EQ(torus.neighbour(0, {-1, 0, 0}), 3);
  EXPECT_EQ(torus.neighbour(0, {0, -1, 0}), 2);
  EXPECT_EQ(torus.neighbour(0, {0, 0, 1}), 0);  // a dimension of one process: itself
  EXPECT_EQ(torus.neighbour(5, {1, 1, 0}), 0);
}

// A scrambled grid is the same grid with its ranks renamed: every rank keeps one place, the
// neighbour relation is the plain grid's (brute force over every rank and offset), and the ranks
// that neighbour in the plain order mostly no longer do.
TEST(Decomposition, ScrambledGridRenamesTheRanks) {
  ProcessGrid plain;
  plain.dims = {4, 2, 2};
  plain.periodic = {true, true, true};
  ProcessGrid mixed = plain;
  mixed.scramble(1);
  std::vector<int> seen(16, 0);
  for (int r = 0; r < 16; ++r) ++seen[static_cast<std::size_t>(mixed.position_of.at(static_cast<std::size_t>(r)))];
  EXPECT_EQ(seen, std::vector<int>(16, 1));
  int moved = 0, still_adjacent = 0;
  for (int r = 0; r < 16; ++r) {
    const int p = mixed.position_of[static_cast<std::size_t>(r)];
    moved += p != r;
    EXPECT_EQ(mixed.rank(mixed.coords(r)), r);
    EXPECT_EQ(mixed.coords(r), plain.coords(p));
    for (const Vec3& off : neighbour_offsets(27)) {
      EXPECT_EQ(mixed.position_of[static_cast<std::size_t>(mixed.neighbour(r, off))], plain.neighbour(p, off));
    }
    still_adjacent += mixed.neighbour(r, {0, 0, 1}) == plain.neighbour(r, {0, 0, 1});
  }
  EXPECT_GT(moved, 12);
  EXPECT_LT(still_adjacent, 8);
  ProcessGrid again = plain;
  again.scramble(1);
  EXPECT_EQ(again.rank_at, mixed.rank_at);  // seeded: the same order on every run
}

TEST(Decomposition, OffsetsAndTheirTags) {
  EXPECT_EQ(neighbour_offsets(7).size(), 6u);
  EXPECT_EQ(neighbour_offsets(27).size(), 26u);
  std::set<int> tags;
  for (const Vec3& off : neighbour_offsets(27)) {
    const int index = offset_index(off);
    EXPECT_NE(index, 13);
    EXPECT_EQ(offset_index({-off[0], -off[1], -off[2]}), opposite_index(index));
    tags.insert(index);
  }
  EXPECT_EQ(tags.size(), 26u);
}

TEST(Decomposition, BoxesByHand) {
  const Vec3 n{4, 5, 6};
  EXPECT_EQ(send_box(n, {1, 0, -1}), (Box{{4, 1, 1}, {5, 6, 2}}));
  EXPECT_EQ(recv_box(n, {1, 0, -1}), (Box{{5, 1, 0}, {6, 6, 1}}));
  EXPECT_EQ(send_box(n, {1, 0, -1}).volume(), 5u);
  EXPECT_EQ(recv_box(n, {0, 0, 0}).volume(), 120u);
}

// Global coordinates (wrapped around the periodic grid) of a box of `rank`'s block, in the order
// the exchange packs them.
std::vector<Vec3> global_points(const ProcessGrid& pg, const Vec3& grid, int rank, const Box& box) {
  const auto block = pg.block(grid, rank);
  std::vector<Vec3> out;
  for (int i = box.lo[0]; i < box.hi[0]; ++i) {
    for (int j = box.lo[1]; j < box.hi[1]; ++j) {
      for (int k = box.lo[2]; k < box.hi[2]; ++k) {
        const Vec3 local{i, j, k};
        Vec3 g{};
        for (std::size_t d = 0; d < 3; ++d) g[d] = (block[d].begin + local[d] - 1 + grid[d]) % grid[d];
        out.push_back(g);
      }
    }
  }
  return out;
}

// The halo's ground truth, by brute force on global coordinates: every ghost point a rank
// receives from its neighbour at `off` is, in the same order, the point that neighbour sends
// towards -off, on uneven blocks and with dimensions of one or two processes.
TEST(Decomposition, GhostsReceiveTheNeighboursPoints) {
  for (const Vec3 dims : {Vec3{2, 2, 1}, Vec3{3, 2, 2}, Vec3{1, 1, 1}, Vec3{2, 1, 3}}) {
    const ProcessGrid pg{dims, {true, true, true}};
    const Vec3 grid{7, 5, 6};
    for (int r = 0; r < pg.size(); ++r) {
      const auto mine = pg.block(grid, r);
      const Vec3 n{mine[0].size, mine[1].size, mine[2].size};
      for (const Vec3& off : neighbour_offsets(27)) {
        const int s = pg.neighbour(r, off);
        const auto theirs = pg.block(grid, s);
        const Vec3 ns{theirs[0].size, theirs[1].size, theirs[2].size};
        const Vec3 back{-off[0], -off[1], -off[2]};
        EXPECT_EQ(global_points(pg, grid, r, recv_box(n, off)), global_points(pg, grid, s, send_box(ns, back)))
            << "rank " << r << " offset " << off[0] << off[1] << off[2];
      }
    }
  }
}

TEST(Decomposition, SquareRoots) {
  EXPECT_EQ(exact_square_root(1), 1);
  EXPECT_EQ(exact_square_root(4), 2);
  EXPECT_EQ(exact_square_root(16), 4);
  EXPECT_EQ(exact_square_root(3), 0);
  EXPECT_EQ(exact_square_root(8), 0);
}

// NAS BT's requirements on the layout: q cells per process, each cell owned once, and in every
// slab orthogonal to an axis exactly one cell of each process.
TEST(Decomposition, MultiPartitionLayout) {
  for (int q = 1; q <= 4; ++q) {
    const MultiPartition mp{q};
    std::map<Vec3, int> owners;
    for (int r = 0; r < q * q; ++r) {
      const auto cells = mp.cells(r);
      EXPECT_EQ(cells.size(), static_cast<std::size_t>(q));
      for (const Vec3& c : cells) {
        EXPECT_EQ(mp.owner(c), r);
        EXPECT_TRUE(owners.emplace(c, r).second);
      }
    }
    EXPECT_EQ(owners.size(), static_cast<std::size_t>(q * q * q));
    for (std::size_t axis = 0; axis < 3; ++axis) {
      for (int slab = 0; slab < q; ++slab) {
        std::set<int> seen;
        for (const auto& [cell, r] : owners) {
          if (cell[axis] == slab) {
            EXPECT_TRUE(seen.insert(r).second);
          }
        }
        EXPECT_EQ(seen.size(), static_cast<std::size_t>(q * q));
      }
    }
  }
}

// The partner a sweep sends to is the owner of the next cell along the axis, at every stage.
TEST(Decomposition, MultiPartitionPartnersAreFixedPerAxis) {
  const MultiPartition mp{3};
  for (int r = 0; r < 9; ++r) {
    for (int axis = 0; axis < 3; ++axis) {
      for (int stage = 0; stage + 1 < 3; ++stage) {
        Vec3 next = mp.cell_at_stage(r, axis, stage);
        EXPECT_EQ(next[static_cast<std::size_t>(axis)], stage);
        ++next[static_cast<std::size_t>(axis)];
        EXPECT_EQ(mp.owner(next), mp.partner(r, axis, 1));
        EXPECT_EQ(mp.partner(mp.partner(r, axis, 1), axis, -1), r);
      }
    }
  }
  EXPECT_EQ(mp.partner(0, 0, 1), mp.owner({1, 0, 0}));
}

}  // namespace
}  // namespace mpimon
