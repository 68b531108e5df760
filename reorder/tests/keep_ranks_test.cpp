// keep_ranks against brute force: every permutation of the leaves of a small tree that keeps every
// pairwise distance (computed here from the arities and link costs, not by the placement library)
// and the free leaves free is a relabelling of the same cost; the best of them (vertex 0 home first,
// then the most vertices home) must be what keep_ranks reaches.
#include <gtest/gtest.h>

#include <algorithm>
#include <numeric>
#include <random>

#include "mpimon/base/error.hpp"
#include "reorder_model.hpp"

namespace mpimon::reorder {
namespace {

struct Tree {
  std::vector<std::uint32_t> arity;
  std::vector<std::uint64_t> cost;
  std::vector<bool> excluded;  // empty: none

  [[nodiscard]] std::uint64_t leaves() const {
    return std::accumulate(arity.begin(), arity.end(), std::uint64_t{1}, std::multiplies<>());
  }
  [[nodiscard]] bool usable(std::uint64_t leaf) const { return excluded.empty() || !excluded[leaf]; }
  // The test's own distance: the costs of the levels from the first one where the two leaves part.
  [[nodiscard]] std::uint64_t distance(std::uint64_t x, std::uint64_t y) const {
    std::uint64_t span = leaves();
    for (std::size_t l = 0; l < arity.size(); ++l) {
      span /= arity[l];
      if (x / span != y / span) return std::accumulate(cost.begin() + static_cast<std::ptrdiff_t>(l), cost.end(), 0ull);
      x %= span, y %= span;
    }
    return 0;
  }
  [[nodiscard]] TreeTopology topology() const {
    TreeTopology t;
    t.arity = arity;
    t.link_cost = cost;
    t.excluded = excluded;
    return t;
  }
};

using Leaves = std::vector<std::uint64_t>;

// Every permutation of the leaves that keeps the free leaves free and every distance.
std::vector<Leaves> isometries(const Tree& tree) {
  Leaves perm(tree.leaves());
  std::iota(perm.begin(), perm.end(), 0u);
  std::vector<Leaves> out;
  do {
    bool same = true;
    for (std::uint64_t x = 0; same && x < perm.size(); ++x) {
      same = tree.usable(x) == tree.usable(perm[x]);
      for (std::uint64_t y = x + 1; same && y < perm.size(); ++y)
        same = tree.distance(x, y) == tree.distance(perm[x], perm[y]);
    }
    if (same) out.push_back(perm);
  } while (std::next_permutation(perm.begin(), perm.end()));
  return out;
}

// Vertex 0 home counts more than all the others together.
std::uint64_t score(const Leaves& mapping, const Leaves& home) {
  std::uint64_t s = 0;
  for (std::size_t v = 0; v < mapping.size(); ++v) s += mapping[v] == home[v] ? (v == 0 ? mapping.size() : 1) : 0;
  return s;
}

std::uint64_t best_score(const std::vector<Leaves>& symmetries, const Leaves& mapping, const Leaves& home) {
  std::uint64_t best = 0;
  for (const auto& perm : symmetries) {
    Leaves moved(mapping.size());
    for (std::size_t v = 0; v < mapping.size(); ++v) moved[v] = perm[mapping[v]];
    best = std::max(best, score(moved, home));
  }
  return best;
}

// `count` distinct usable leaves in a random order.
Leaves random_injection(const Tree& tree, std::size_t count, std::mt19937& rng) {
  Leaves usable;
  for (std::uint64_t leaf = 0; leaf < tree.leaves(); ++leaf) {
    if (tree.usable(leaf)) usable.push_back(leaf);
  }
  std::shuffle(usable.begin(), usable.end(), rng);
  usable.resize(count);
  return usable;
}

void expect_same_distances(const Tree& tree, const Leaves& before, const Leaves& after) {
  ASSERT_EQ(before.size(), after.size());
  for (std::size_t v = 0; v < after.size(); ++v) {
    ASSERT_TRUE(tree.usable(after[v])) << "vertex " << v << " on a free leaf";
    for (std::size_t u = v + 1; u < after.size(); ++u) {
      ASSERT_NE(after[u], after[v]) << "two vertices on one leaf";
      ASSERT_EQ(tree.distance(after[u], after[v]), tree.distance(before[u], before[v]))
          << "vertices " << u << " and " << v << " moved closer or further apart";
    }
  }
}

// Random mappings and homes on `tree`: keep_ranks reaches the brute-force best exactly, and its
// greedy form (exact_limit 0) still brings vertex 0 home whenever a symmetry can.
void check_tree(const Tree& tree, std::size_t vertices, int cases, unsigned seed) {
  const auto symmetries = isometries(tree);
  ASSERT_GT(symmetries.size(), 1u);
  std::mt19937 rng(seed);
  const TreeTopology topo = tree.topology();
  std::size_t home_zero_possible = 0, improved = 0;
  for (int c = 0; c < cases; ++c) {
    const Leaves mapping = random_injection(tree, vertices, rng);
    const Leaves home = random_injection(tree, vertices, rng);
    const std::uint64_t best = best_score(symmetries, mapping, home);
    const Leaves kept = keep_ranks(mapping, topo, home);
    expect_same_distances(tree, mapping, kept);
    EXPECT_EQ(score(kept, home), best) << "case " << c;
    const Leaves greedy = keep_ranks(mapping, topo, home, 0);
    expect_same_distances(tree, mapping, greedy);
    EXPECT_LE(score(greedy, home), best);
    const bool zero_home = best >= vertices;
    EXPECT_EQ(greedy[0] == home[0], zero_home) << "case " << c << ": the greedy form and vertex 0";
    home_zero_possible += zero_home;
    improved += best > score(mapping, home);
  }
  // The cases are not trivial: vertex 0 can go home in some and not in others (uneven trees), and
  // the relabelling changes something.
  EXPECT_GT(improved, 0u);
  EXPECT_GT(home_zero_possible, 0u);
}

TEST(ReorderKeepRanks, NodesPackagesCores) {
  // 2 nodes x 2 packages x 2 cores: 128 symmetries; every vertex can be brought home alone.
  check_tree({{2, 2, 2}, {100, 10, 1}, {}}, 8, 200, 1);
}

TEST(ReorderKeepRanks, FewerVerticesThanPlaces) {
  check_tree({{3, 2}, {100, 1}, {}}, 4, 200, 2);
  check_tree({{2, 2, 2}, {100, 10, 1}, {}}, 5, 200, 3);
}

TEST(ReorderKeepRanks, UnevenNodesOfSlots) {
  // Nodes of 3, 2, 3 processes (slots of cost 0, free ones excluded): only the two nodes of 3 are
  // interchangeable, so vertex 0 cannot always go home.
  Tree tree{{3, 3}, {100, 0}, {false, false, false, false, false, true, false, false, false}};
  const auto symmetries = isometries(tree);
  std::mt19937 rng(4);
  std::size_t not_home = 0;
  for (int c = 0; c < 300; ++c) {
    const Leaves mapping = random_injection(tree, 8, rng), home = random_injection(tree, 8, rng);
    const std::uint64_t best = best_score(symmetries, mapping, home);
    const Leaves kept = keep_ranks(mapping, tree.topology(), home);
    expect_same_distances(tree, mapping, kept);
    EXPECT_EQ(score(kept, home), best) << "case " << c;
    not_home += best < 8;
  }
  EXPECT_GT(not_home, 0u) << "some cases where vertex 0 cannot go home";
  check_tree({{2, 2, 2}, {100, 10, 1}, {false, true, false, false, false, false, true, false}}, 6, 200, 5);
}

TEST(ReorderKeepRanks, VertexZeroBeforeTheOthers) {
  // 2 nodes of 2: v0 at leaf 2, v1, v2 at 0 and 1, v3 at 3; homes: v on leaf v. Keeping the nodes
  // brings v1 and v3 home (2 vertices); swapping them brings v0 and v2 (also 2): vertex 0 decides.
  const Tree tree{{2, 2}, {100, 1}, {}};
  const Leaves kept = keep_ranks({2, 0, 1, 3}, tree.topology(), {0, 1, 2, 3});
  EXPECT_EQ(kept[0], 0u);
  EXPECT_EQ(score(kept, {0, 1, 2, 3}), 4u + 1u);
  // 2 nodes of 3 slots (cost 0): v1 and v2 on node A, their homes on A; v0 alone on node B, its
  // home on A. Keeping the nodes brings 2 vertices home, swapping them only v0: vertex 0 wins.
  const Tree slots{{2, 3}, {100, 0}, {}};
  const Leaves mapping{3, 0, 1}, home{2, 0, 1};
  const Leaves result = keep_ranks(mapping, slots.topology(), home);
  EXPECT_EQ(result[0], 2u);
  EXPECT_EQ(result[1] / 3, 1u);
  EXPECT_EQ(result[2] / 3, 1u);
  EXPECT_EQ(score(result, home), best_score(isometries(slots), mapping, home));
}

TEST(ReorderKeepRanks, RefusesFreePlaces) {
  const Tree tree{{2, 2}, {100, 1}, {false, true, false, false}};
  EXPECT_THROW(keep_ranks({1, 0}, tree.topology(), {0, 2}), Error);
  EXPECT_THROW(keep_ranks({0, 2}, tree.topology(), {0}), Error);
}

}  // namespace
}  // namespace mpimon::reorder
