// Placement: expected costs come from a hand-worked example and from a brute-force enumeration
// with its own distance (digits of the leaf index), never from evaluate_mapping itself.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <filesystem>
#include <fstream>
#include <map>
#include <numeric>
#include <random>
#include <sstream>

#include "mpimon/base/error.hpp"
#include "mpimon/json.hpp"
#include "mpimon/matrices/export.hpp"
#include "mpimon/placement/placement.hpp"
#include "test_util.hpp"

namespace mpimon {
namespace {

SparseMatrix dense(std::uint32_t n, const std::vector<std::uint64_t>& values) {
  return SparseMatrix::from_dense(n, n, values);
}

// The test's own model: digits of each leaf top-down, cost = sum of the link costs from the first
// differing digit down.
std::uint64_t reference_distance(const std::vector<std::uint32_t>& arity, const std::vector<std::uint64_t>& cost,
                                 std::uint64_t a, std::uint64_t b) {
  std::vector<std::uint64_t> da(arity.size()), db(arity.size());
  for (std::size_t l = arity.size(); l-- > 0;) {
    da[l] = a % arity[l], a /= arity[l];
    db[l] = b % arity[l], b /= arity[l];
  }
  for (std::size_t l = 0; l < arity.size(); ++l) {
    if (da[l] != db[l]) return std::accumulate(cost.begin() + static_cast<long>(l), cost.end(), std::uint64_t{0});
  }
  return 0;
}

std::uint64_t reference_cost(const std::vector<std::uint32_t>& arity, const std::vector<std::uint64_t>& cost,
                             std::uint32_t n, const std::vector<std::uint64_t>& m, const Mapping& sigma) {
  std::uint64_t total = 0;
  for (std::uint32_t i = 0; i < n; ++i) {
    for (std::uint32_t j = i + 1; j < n; ++j) {
      total += (m[i * n + j] + m[j * n + i]) * reference_distance(arity, cost, sigma[i], sigma[j]);
    }
  }
  return total;
}

// The optimum over every injection of n ranks into the leaves.
std::uint64_t brute_force_optimum(const std::vector<std::uint32_t>& arity, const std::vector<std::uint64_t>& cost,
                                  std::uint32_t n, const std::vector<std::uint64_t>& m) {
  const std::uint64_t leaves = std::accumulate(arity.begin(), arity.end(), std::uint64_t{1}, std::multiplies<>());
  std::vector<std::uint64_t> all(leaves);
  std::iota(all.begin(), all.end(), std::uint64_t{0});
  std::uint64_t best = UINT64_MAX;
  // Every permutation of the leaves; its first n entries enumerate every injection.
  do {
    best = std::min(best, reference_cost(arity, cost, n, m, Mapping(all.begin(), all.begin() + n)));
  } while (std::next_permutation(all.begin(), all.end()));
  return best;
}

TEST(PlacementTopology, ParsesTleafShorthandAndFiles) {
  const TreeTopology t = parse_topology("tleaf 3 4 100 2 10 6 1");
  EXPECT_EQ(t.leaves(), 48u);
  EXPECT_EQ(t.nodes(), 4u);
  EXPECT_EQ(t.tleaf(), "tleaf 3 4 100 2 10 6 1");
  const TreeTopology s = parse_topology("8x2x4");
  EXPECT_EQ(s.tleaf(), "tleaf 3 8 100 2 10 4 1");
  EXPECT_EQ(parse_topology("1x2x4").tleaf(), "tleaf 2 2 10 4 1");
  EXPECT_EQ(parse_topology("1x2x4").nodes(), 1u);
  const test::TempDir dir;
  EXPECT_EQ(parse_topology(dir.write("topology.tgt", "tleaf 2 2 50 3 5\n")).leaves(), 6u);
}

TEST(PlacementTopology, RejectsBadStrings) {
  for (const char* bad : {"tleaf", "tleaf 2 4 100", "tleaf 1 1 5", "tleaf 1 4 0", "tleaf x 4 1", "4x2", "no-such-file",
                          "tleaf 1 4 1 extra"}) {
    try {
      parse_topology(bad);
      ADD_FAILURE() << bad << " parsed";
    } catch (const Error& e) {
      EXPECT_EQ(e.kind(), Error::Kind::usage) << bad;
      EXPECT_NE(std::string(e.what()).find("--topology"), std::string::npos) << e.what();
    }
  }
}

// The notes' case where TreeMatch's own evaluator is wrong: leaves 0 and 2 share the lowest level
// of `tleaf 3 2 1000 2 100 4 10` (4 cores per socket), so their cost is 10, not 110.
TEST(PlacementCost, AsymmetricTreeDistance) {
  const TreeTopology t = parse_topology("tleaf 3 2 1000 2 100 4 10");
  EXPECT_EQ(t.distance(0, 2), 10u);
  EXPECT_EQ(t.distance(0, 4), 110u);
  EXPECT_EQ(t.distance(0, 8), 1110u);
}

// Worked by hand: 4 ranks, tree of 2 sockets x 2 cores (costs 10 and 1).
// Traffic 0->1: 7, 1->0: 3 (w01 = 10), 0->2: 4 (w02 = 4), 2->3: 6 (w23 = 6), 1->3: 2 (w13 = 2).
// packed (0,1 | 2,3): 10*1 + 4*11 + 6*1 + 2*11 = 82; crossing sockets: 4 + 2 = 6.
TEST(PlacementCost, HandWorkedExample) {
  const TreeTopology t = parse_topology("tleaf 2 2 10 2 1");
  const auto graph = fold_traffic(dense(4, {0, 7, 4, 0, 3, 0, 0, 2, 0, 0, 0, 6, 0, 0, 0, 0}));
  const PlacementMetrics packed = evaluate_mapping(graph, t, packed_mapping(4, t));
  EXPECT_EQ(static_cast<std::uint64_t>(packed.cost), 82u);
  EXPECT_EQ(static_cast<std::uint64_t>(packed.crossing[0]), 6u);
  EXPECT_EQ(static_cast<std::uint64_t>(packed.crossing[1]), 22u);
  // cyclic alternates the two top-level subtrees: 0->leaf 0, 1->leaf 2, 2->leaf 1, 3->leaf 3:
  // w01 crosses (110), w02 stays (4), w23 crosses (66), w13 stays (2) = 182.
  const Mapping cyclic = cyclic_mapping(4, t);
  EXPECT_EQ(cyclic, (Mapping{0, 2, 1, 3}));
  EXPECT_EQ(static_cast<std::uint64_t>(evaluate_mapping(graph, t, cyclic).cost), 182u);
  // Best: {0,1} and {2,3} together (82) or {0,2},{1,3}: 4+2 + 11*(10+6) = 182; 82 is optimal.
  EXPECT_EQ(static_cast<std::uint64_t>(evaluate_mapping(graph, t, refine_mapping(graph, t, cyclic)).cost), 82u);
}

TEST(PlacementCost, NodeTraffic) {
  // 2 nodes x 2 cores; ranks 0,1 on node 0, 2,3 on node 1: only w12 = 5 and w03 = 1 leave a node.
  const TreeTopology t = parse_topology("tleaf 2 2 100 2 1");
  const auto graph = fold_traffic(dense(4, {0, 9, 0, 1, 0, 0, 5, 0, 0, 0, 0, 0, 0, 0, 0, 0}));
  const PlacementMetrics m = evaluate_mapping(graph, t, packed_mapping(4, t));
  EXPECT_EQ(static_cast<std::uint64_t>(m.busiest_node_off_node), 6u);
  EXPECT_EQ(static_cast<std::uint64_t>(m.crossing[0]), 6u);
}

class BruteForce : public ::testing::TestWithParam<int> {
 protected:
  // Random sparse traffic on 5 ranks and 8 leaves, drawn from the test's seed.
  const std::vector<std::uint32_t> arity = {2, 2, 2};
  const std::vector<std::uint64_t> cost = {100, 10, 1};
  const TreeTopology t = parse_topology("tleaf 3 2 100 2 10 2 1");
  static constexpr std::uint32_t n = 5;
  std::vector<std::uint64_t> m = traffic(static_cast<std::uint64_t>(GetParam()));
  static std::vector<std::uint64_t> traffic(std::uint64_t seed) {
    std::mt19937_64 rng(seed);
    std::vector<std::uint64_t> m(n * n, 0);
    for (auto& v : m) v = rng() % 3 == 0 ? rng() % 1000 : 0;
    for (std::uint32_t i = 0; i < n; ++i) m[i * n + i] = 0;
    return m;
  }
};

// evaluate_mapping agrees with the reference on random mappings; refinement and the default never
// beat the optimum, and the default is never worse than scotch or packed.
TEST_P(BruteForce, AgainstEnumeration) {
  const auto graph = fold_traffic(dense(n, m));
  for (int draw = 0; draw < 20; ++draw) {
    const Mapping sigma = random_mapping(n, t, static_cast<std::uint64_t>(draw));
    EXPECT_EQ(static_cast<std::uint64_t>(evaluate_mapping(graph, t, sigma).cost),
              reference_cost(arity, cost, n, m, sigma));
  }
  const std::uint64_t optimum = brute_force_optimum(arity, cost, n, m);
  PlacementRequest request;
  request.methods = {"scotch", "packed", "cyclic", "random", "refine"};
  const auto rows = place(graph, graph, t, request);
  const MethodResult& best = cheapest(rows);
  EXPECT_GE(static_cast<std::uint64_t>(best.metrics.cost), optimum);
  EXPECT_EQ(static_cast<std::uint64_t>(best.metrics.cost), reference_cost(arity, cost, n, m, best.mapping));
  for (const auto& r : rows) {
    if (r.method == "scotch" || r.method == "packed") {
      EXPECT_LE(best.metrics.cost, r.metrics.cost) << r.method;
    }
    if (r.method == "refine") {
      EXPECT_EQ(r.metrics.cost, best.metrics.cost);
    }
  }
}

// The default is never worse than TreeMatch's mapping, nor better than the optimum. Skipped, with
// the reason, where Open MPI 4.1's TreeMatch is not installed (decided before any check).
TEST_P(BruteForce, NoWorseThanTreeMatch) {
  const TreeMatchLibrary library = find_treematch();
  if (library.path.empty()) GTEST_SKIP() << "TreeMatch not available: " << library.problem;
  const auto graph = fold_traffic(dense(n, m));
  PlacementRequest request;
  request.methods = {"treematch", "scotch", "packed", "cyclic", "random", "refine"};
  const auto rows = place(graph, graph, t, request);
  const MethodResult& best = cheapest(rows);
  EXPECT_GE(static_cast<std::uint64_t>(best.metrics.cost), brute_force_optimum(arity, cost, n, m));
  const auto treematch = std::find_if(rows.begin(), rows.end(), [](const auto& r) { return r.method == "treematch"; });
  ASSERT_NE(treematch, rows.end());
  EXPECT_TRUE(treematch->unavailable.empty()) << treematch->unavailable;
  EXPECT_LE(best.metrics.cost, treematch->metrics.cost);
}

INSTANTIATE_TEST_SUITE_P(Seeds, BruteForce, ::testing::Range(1, 7));

// Larger trees than the enumeration above can afford by permutations of all leaves: the optimum
// over every bijection of n ranks onto n leaves (n = 8 to 10), found by the test's own enumeration;
// the default (cheapest row) must reach it, and the lower bound must not exceed it.
struct Exhaustive {
  const char* tleaf;
  std::vector<std::uint32_t> arity;
  std::vector<std::uint64_t> cost;
  std::uint64_t seed;
};
class ExhaustiveOptimum : public ::testing::TestWithParam<Exhaustive> {};

TEST_P(ExhaustiveOptimum, DefaultFindsIt) {
  const Exhaustive& c = GetParam();
  const TreeTopology t = parse_topology(c.tleaf);
  const auto n = static_cast<std::uint32_t>(t.leaves());
  std::mt19937_64 rng(c.seed);
  std::vector<std::uint64_t> m(n * n, 0);
  for (std::uint32_t i = 0; i < n; ++i) {
    for (std::uint32_t j = 0; j < n; ++j) m[i * n + j] = i != j && rng() % 2 == 0 ? rng() % 1000 : 0;
  }
  Mapping sigma(n);
  std::iota(sigma.begin(), sigma.end(), std::uint64_t{0});
  std::vector<std::uint64_t> d(n * n), w(n * n);  // the reference distance, tabulated for speed
  for (std::uint32_t i = 0; i < n; ++i) {
    for (std::uint32_t j = 0; j < n; ++j) d[i * n + j] = reference_distance(c.arity, c.cost, i, j);
    for (std::uint32_t j = 0; j < n; ++j) w[i * n + j] = m[i * n + j] + m[j * n + i];
  }
  std::uint64_t optimum = UINT64_MAX;
  do {
    std::uint64_t total = 0;
    for (std::uint32_t i = 0; i < n; ++i) {
      for (std::uint32_t j = i + 1; j < n; ++j) total += w[i * n + j] * d[sigma[i] * n + sigma[j]];
    }
    optimum = std::min(optimum, total);
  } while (std::next_permutation(sigma.begin(), sigma.end()));
  const auto graph = fold_traffic(dense(n, m));
  PlacementRequest request;
  request.methods = {"scotch", "multisection", "packed", "cyclic", "refine"};
  const auto rows = place(graph, graph, t, request);
  const MethodResult& best = cheapest(rows);
  EXPECT_EQ(reference_cost(c.arity, c.cost, n, m, best.mapping), optimum) << best.method;
  EXPECT_LE(static_cast<std::uint64_t>(best.lower_bound), optimum);
}

INSTANTIATE_TEST_SUITE_P(Trees, ExhaustiveOptimum,
                         ::testing::Values(Exhaustive{"tleaf 3 2 100 2 10 2 1", {2, 2, 2}, {100, 10, 1}, 11},
                                           Exhaustive{"tleaf 3 2 100 2 10 2 1", {2, 2, 2}, {100, 10, 1}, 12},
                                           Exhaustive{"tleaf 2 3 10 3 1", {3, 3}, {10, 1}, 13},
                                           Exhaustive{"tleaf 2 3 10 3 1", {3, 3}, {10, 1}, 14},
                                           Exhaustive{"tleaf 2 2 10 5 1", {2, 5}, {10, 1}, 15},
                                           Exhaustive{"tleaf 2 5 7 2 3", {5, 2}, {7, 3}, 16}),
                         [](const auto& p) { return "seed" + std::to_string(p.param.seed); });

// Sparse traffic, where the spanning-forest cut bound binds: a path of 8 unit weights on 2x2x2 costs at
// least 1 x 111 + 2 x 11 + 4 x 1 = 137 (any mapping cuts one path edge between the nodes, three
// between the four sockets, all seven between cores), which packed reaches; brute force agrees.
TEST(PlacementBound, PathIsTight) {
  const std::uint32_t n = 8;
  std::vector<std::uint64_t> m(n * n, 0);
  for (std::uint32_t i = 0; i + 1 < n; ++i) m[i * n + i + 1] = 1;
  ASSERT_EQ(brute_force_optimum({2, 2, 2}, {100, 10, 1}, n, m), 137u);
  EXPECT_EQ(static_cast<std::uint64_t>(placement_lower_bound(fold_traffic(dense(n, m)), parse_topology("2x2x2"))),
            137u);
}

// Random sparse graphs (a random spanning tree or forest, a few more edges, random weights): the
// bound never exceeds the brute-force optimum.
TEST(PlacementBound, NeverAboveTheOptimumOnSparseGraphs) {
  struct Tree {
    std::string tleaf;
    std::vector<std::uint32_t> arity;
    std::vector<std::uint64_t> cost;
  };
  const Tree trees[] = {{"tleaf 3 2 100 2 10 2 1", {2, 2, 2}, {100, 10, 1}}, {"tleaf 2 3 10 3 1", {3, 3}, {10, 1}}};
  for (const auto& t : trees) {
    for (std::uint64_t seed = 1; seed <= 6; ++seed) {
      std::mt19937_64 rng(seed);
      const auto n = static_cast<std::uint32_t>(parse_topology(t.tleaf).leaves() - seed % 2);  // some free leaves
      std::vector<std::uint64_t> m(n * n, 0);
      for (std::uint32_t v = 1; v < n; ++v) {
        if (seed % 3 != 0 || v != n / 2) m[(rng() % v) * n + v] = 1 + rng() % 1000;  // seed % 3 == 0: a forest
      }
      for (int extra = 0; extra < 2; ++extra) m[(rng() % n) * n + rng() % n] += 1 + rng() % 1000;
      for (std::uint32_t v = 0; v < n; ++v) m[v * n + v] = 0;
      const std::uint64_t optimum = brute_force_optimum(t.arity, t.cost, n, m);
      const auto bound = placement_lower_bound(fold_traffic(dense(n, m)), parse_topology(t.tleaf));
      EXPECT_LE(static_cast<std::uint64_t>(bound), optimum) << t.tleaf << " seed " << seed;
    }
  }
}

// A planted instance whose optimum is provable: groups of one socket's size are cliques of the
// heaviest weights (3000-3999), the two groups of a node are linked pair by pair with medium weights
// (100-999), nodes by a few light ones (1-99). The weights sorted down fill exactly the cheapest distance slots when
// each group sits on one socket, which is thus a lower bound any mapping must meet (rearrangement): its cost, summed
// here from the construction, is the optimum. Ranks are scrambled.
struct Planted {
  std::uint32_t nodes, cores;  // tree: nodes x 2 sockets x cores
};
class PlantedOptimum : public ::testing::TestWithParam<Planted> {};

TEST_P(PlantedOptimum, DefaultFindsIt) {
  const auto [nodes, cores] = GetParam();
  const std::uint32_t n = nodes * 2 * cores;
  const TreeTopology t =
      parse_topology("tleaf 3 " + std::to_string(nodes) + " 100 2 10 " + std::to_string(cores) + " 1");
  std::mt19937_64 rng(n);
  std::vector<std::uint32_t> scramble(n);
  std::iota(scramble.begin(), scramble.end(), 0u);
  std::shuffle(scramble.begin(), scramble.end(), rng);
  std::map<std::pair<std::uint32_t, std::uint32_t>, std::uint64_t> traffic;  // planted position pairs
  std::uint64_t optimum = 0;
  auto link = [&](std::uint32_t a, std::uint32_t b, std::uint64_t w, std::uint64_t distance) {
    if (a == b || traffic.count({std::min(a, b), std::max(a, b)})) return;
    traffic[{std::min(a, b), std::max(a, b)}] = w;
    optimum += w * distance;
  };
  for (std::uint32_t a = 0; a < n; ++a) {
    const std::uint32_t socket = a / cores, node = a / (2 * cores);
    for (std::uint32_t b = socket * cores; b < (socket + 1) * cores; ++b) {
      if (b > a) link(a, b, 3000 + rng() % 1000, 1);
    }
    const std::uint32_t other_socket = (socket % 2 == 0 ? socket + 1 : socket - 1);
    for (std::uint32_t b = other_socket * cores; b < (other_socket + 1) * cores; ++b) link(a, b, 100 + rng() % 900, 11);
    if (nodes > 1) {
      const std::uint32_t other_node = (node + 1 + static_cast<std::uint32_t>(rng() % (nodes - 1))) % nodes;
      link(a, other_node * 2 * cores + static_cast<std::uint32_t>(rng() % (2 * cores)), 1 + rng() % 99, 111);
    }
  }
  AffinityGraph graph;
  graph.order = n;
  for (const auto& [pair, w] : traffic) {
    const auto [a, b] = std::minmax(scramble[pair.first], scramble[pair.second]);
    graph.edges.push_back({a, b, w});
  }
  const auto rows = place(graph, graph, t, PlacementRequest{{"multisection", "packed"}, true, 1, 1, 0, {}});
  const MethodResult& best = cheapest(rows);
  EXPECT_EQ(static_cast<std::uint64_t>(best.metrics.cost), optimum) << best.method;
  EXPECT_EQ(static_cast<std::uint64_t>(best.lower_bound), optimum);  // the bound is tight here
}

INSTANTIATE_TEST_SUITE_P(Sizes, PlantedOptimum,
                         ::testing::Values(Planted{4, 8}, Planted{8, 16}, Planted{32, 8}, Planted{64, 16},
                                           Planted{128, 16}),
                         [](const auto& p) { return "ranks" + std::to_string(p.param.nodes * 2 * p.param.cores); });

// Scotch alone (not the cheapest of all methods) on traffic whose optimum is plain: two heavy
// pairs on two nodes of two cores; each pair on a node is the only mapping that costs 2 x 1000 x 1
// + 1 x 11 (brute force agrees). Scotch's own answer must reach it: a mapping read in another leaf
// numbering than Scotch's, or repaired where it needed no repair, does not.
TEST(ScotchMapping, ReachesThePlainOptimumOfTwoHeavyPairs) {
  const std::vector<std::uint32_t> arity = {2, 2};
  const std::vector<std::uint64_t> cost = {10, 1};
  const TreeTopology t = parse_topology("tleaf 2 2 10 2 1");
  const std::uint32_t n = 4;
  std::vector<std::uint64_t> m(n * n, 0);
  m[0 * n + 1] = m[2 * n + 3] = 1000;
  m[1 * n + 2] = 1;
  const std::uint64_t optimum = brute_force_optimum(arity, cost, n, m);
  ASSERT_EQ(optimum, 2011u);
  const Mapping scotch = scotch_mapping(fold_traffic(dense(n, m)), t);
  EXPECT_EQ(reference_cost(arity, cost, n, m, scotch), optimum)
      << "Scotch's mapping: " << scotch[0] << " " << scotch[1] << " " << scotch[2] << " " << scotch[3];
}

// Scotch 7 maps with threads: without its deterministic context the mapping of a graph this size
// changed from run to run (as `mpimon place --method scotch` on Fig. 5's 1024-rank traffic did).
TEST(ScotchMapping, TheSameMappingOnEveryRun) {
  const std::uint32_t side = 8, depth = 16, n = side * side * depth;  // a 27-point stencil's neighbours
  std::mt19937 rng(3);
  std::vector<std::uint64_t> m(static_cast<std::size_t>(n) * n, 0);
  for (std::uint32_t r = 0; r < n; ++r) {
    const int x = static_cast<int>(r % side), y = static_cast<int>(r / side % side),
              z = static_cast<int>(r / side / side);
    for (int dx = -1; dx <= 1; ++dx)
      for (int dy = -1; dy <= 1; ++dy)
        for (int dz = -1; dz <= 1; ++dz) {
          const int px = (x + dx + side) % side, py = (y + dy + side) % side, pz = (z + dz + depth) % depth;
          const auto peer = static_cast<std::uint32_t>(px + side * (py + side * pz));
          if (peer != r) m[static_cast<std::size_t>(r) * n + peer] = 1000 + rng() % 100000;
        }
  }
  const AffinityGraph graph = fold_traffic(dense(n, m));
  const TreeTopology t = parse_topology("tleaf 4 8 1000 16 100 2 10 4 1");
  const Mapping first = scotch_mapping(graph, t);
  for (int run = 0; run < 3; ++run) EXPECT_EQ(scotch_mapping(graph, t), first) << "run " << run + 2;
}

// The repair, worked by hand on 2 nodes x 2 cores (leaves {0, 1}, {2, 3}; cost 11 between nodes, 1
// within): of ranks sharing a leaf the lowest keeps it, a rank on an excluded leaf moves too, each to
// the free usable leaf nearest its peers; it returns the ranks it moved.
TEST(RepairMapping, MovesSharedAndExcludedAndSaysWhich) {
  const TreeTopology t = parse_topology("tleaf 2 2 10 2 1");
  const auto graph = fold_traffic(dense(3, {0, 5, 0, 0, 0, 1, 0, 0, 0}));  // 0-1: 5, 1-2: 1
  Mapping shared = {1, 1, 3};  // rank 1 joins rank 0 on leaf 1: leaf 0 is 1 from it, leaf 2 is 11
  EXPECT_EQ(repair_mapping(graph, t, shared), (std::vector<std::uint32_t>{1}));
  EXPECT_EQ(shared, (Mapping{1, 0, 3}));
  Mapping excluded = {3, 3, 0};  // core 3 excluded: rank 0 goes next to rank 1 (leaf 2), rank 1 to leaf 1
  EXPECT_EQ(repair_mapping(graph, with_excluded(t, {3}), excluded), (std::vector<std::uint32_t>{0, 1}));
  EXPECT_EQ(excluded, (Mapping{2, 1, 0}));
  Mapping fine = {0, 1, 2};
  EXPECT_TRUE(repair_mapping(graph, t, fine).empty());
  EXPECT_EQ(fine, (Mapping{0, 1, 2}));
}

// libscotch gets the weights `mpimon export scotch` writes (docs/exports.md): exact up to an arc
// total of 2^29, above multiplied by 2^29 / total and rounded up (5 x 1/4 -> 2, nearest would give 1).
TEST(PlacementScotchWeights, SameRuleAsTheExport) {
  EXPECT_EQ(int32_tools_factor(uint128{1} << 29), 1.0);
  EXPECT_EQ(int32_tools_factor(uint128{1} << 31), 0.25);
  EXPECT_EQ(int32_tools_weight(5, 0.25), 2u);
  EXPECT_EQ(int32_tools_weight(1, 1.0 / 1024), 1u);
  EXPECT_EQ(int32_tools_weight(7, 1.0), 7u);
  const std::vector<std::uint64_t> m = {0, std::uint64_t{1} << 31, 5, std::uint64_t{1} << 31, 0, 0, 5, 0, 0};
  const auto exported = graph_weights_for_int32_tools(SparseMatrix::from_dense(3, 3, m));
  EXPECT_DOUBLE_EQ(exported.factor, 536870912.0 / (4294967296.0 + 10));
  EXPECT_EQ(exported.values, (std::vector<std::uint64_t>{268435456, 1, 268435456, 1}));
}

TEST(PlacementMethods, MoreRanksThanLeavesAndNonSquare) {
  const TreeTopology t = parse_topology("tleaf 1 4 1");
  const auto graph = fold_traffic(SparseMatrix::zeros(5, 5));
  EXPECT_THROW(place(graph, graph, t, PlacementRequest{}), Error);
  EXPECT_THROW(fold_traffic(SparseMatrix::zeros(3, 4)), Error);
}

TEST(PlacementMethods, FewerRanksThanLeavesAndRandomSpread) {
  const TreeTopology t = parse_topology("2x2x4");
  const auto graph = fold_traffic(dense(3, {0, 5, 0, 5, 0, 5, 0, 5, 0}));
  PlacementRequest request;
  request.methods = {"packed", "cyclic", "random", "scotch", "refine"};
  request.random_draws = 10;
  const auto rows = place(graph, graph, t, request);
  for (const auto& r : rows) check_mapping(r.mapping, 3, t);
  EXPECT_EQ(rows[1].mapping, (Mapping{0, 8, 1}));  // cyclic over the 2 nodes
  EXPECT_EQ(rows[2].draws, 10u);
  EXPECT_LE(rows[2].cost_min, rows[2].cost_mean);
  EXPECT_LE(rows[2].cost_mean, rows[2].cost_max);
  EXPECT_EQ(static_cast<std::uint64_t>(rows[4].metrics.cost), 20u);  // all three on one socket
}

TEST(PlacementFiles, MappingAndRankfile) {
  const TreeTopology t = parse_topology("2x2x4");  // 8 leaves a node, 4 a socket
  const Mapping m = {0, 5, 9, 15};
  std::ostringstream mapping, rankfile;
  write_mapping(m, t, mapping);
  EXPECT_EQ(mapping.str(), "0 0\n1 5\n2 9\n3 15\n");
  write_rankfile(m, t, {"a", "b"}, rankfile);
  EXPECT_EQ(rankfile.str(), "rank 0=a slot=0:0\nrank 1=a slot=1:1\nrank 2=b slot=0:1\nrank 3=b slot=1:3\n");
  std::ostringstream ignored;
  EXPECT_THROW(write_rankfile(m, t, {"a"}, ignored), Error);
}

// The JSON report, written out by hand from the format docs/placement.md describes.
// Equal JSON values, numbers within 1e-9 (relative).
void expect_same_json(const Json& got, const Json& want, const std::string& at) {
  if (want.is_number() && got.is_number()) {
    const double g = got.get<double>(), w = want.get<double>();
    EXPECT_NEAR(g, w, 1e-9 * std::max(1.0, std::abs(w))) << at;
  } else if (want.is_object() && got.is_object()) {
    EXPECT_EQ(got.size(), want.size()) << at << ": " << got.dump();
    for (const auto& [key, value] : want.items()) {
      ASSERT_TRUE(got.contains(key)) << at << ": no " << key;
      expect_same_json(got.at(key), value, at + "." + key);
    }
  } else if (want.is_array() && got.is_array()) {
    ASSERT_EQ(got.size(), want.size()) << at;
    for (std::size_t i = 0; i < want.size(); ++i) expect_same_json(got[i], want[i], at + "[" + std::to_string(i) + "]");
  } else {
    EXPECT_EQ(got, want) << at;
  }
}

TEST(PlacementReport, JsonRowsAsTheFormatSays) {
  TreeTopology t;
  t.arity = {2, 2};
  t.link_cost = {100, 1};
  t.node_levels = 1;
  t.source = "2x2";
  auto row = [](const char* method, Mapping mapping, PlacementMetrics metrics) {
    MethodResult r;
    r.method = method;
    r.mapping = std::move(mapping);
    r.metrics = std::move(metrics);
    r.computed_cost = r.metrics.cost;
    r.lower_bound = 5;
    return r;
  };
  MethodResult treematch;
  treematch.method = "treematch";
  treematch.unavailable = "no \"TreeMatch\" here";
  treematch.lower_bound = 5;
  MethodResult packed = row("packed", {0, 1, 2, 3}, {7, {5, 2}, 5});
  packed.gain_vs_packed = 0.0;
  packed.gain_vs_random = 25.0;
  MethodResult random = row("random", {3, 2, 1, 0}, {10, {6, 4}, 6});
  random.draws = 2;
  random.cost_mean = 8.75, random.cost_sd = 1.25, random.cost_min = 7.5, random.cost_max = 10;
  random.gain_vs_packed = -20.0;
  MethodResult refine = row("refine", {1, 0, 2, 3}, {6, {4, 2}, 4});
  refine.started_from = "packed";
  refine.repaired_ranks = {1, 3};
  refine.gain_vs_packed = 100.0 * (7.0 / 6.0 - 1.0);
  std::ostringstream out;
  write_placement_json(out, {treematch, packed, random, refine}, t,
                       {"run.h5", "phase_1", 4, "external,internal", "external", "bytes", 7, ""}, "refine");
  const std::string expected = std::string(R"({
  "format": "mpimon-placement",
  "file": "run.h5",
  "dump": "phase_1",
  "ranks": 4,
  "topology": {
    "tleaf": "tleaf 2 2 100 2 1",
    "source": "2x2",
    "leaves": 4,
    "nodes": 2,
    "node_levels": 1,
    "socket_levels": 0
  },
  "model": ")") + kPlacementModel +
                               R"(",
  "classes": "external,internal",
  "evaluate_classes": "external",
  "metric": "bytes",
  "seed": 7,
  "chosen": "refine",
  "lower_bound": 5,
  "objective": "hop-bytes",
  "hop_bytes_choice": null,
  "links": [],
  "links_source": null,
  "time_model": null,
  "time_lower_bound_seconds": null,
  "methods": [
    {"method": "treematch", "unavailable": "no \"TreeMatch\" here", "seconds": 0, "predicted_seconds": null},
    {"method": "packed", "cost": 7, "computed_cost": 7, "vs_bound_percent": 40, "seconds": 0, "gain_vs_packed_percent": 0, "gain_vs_random_percent": 25, "crossing": [5, 2], "busiest_node_off_node": 5, "predicted_seconds": null, "repaired_ranks": [], "mapping": [0, 1, 2, 3]},
    {"method": "random", "cost": 10, "computed_cost": 10, "draws": 2, "cost_mean": 8.75, "cost_sd": 1.25, "cost_min": 7.5, "cost_max": 10, "vs_bound_percent": 75, "seconds": 0, "gain_vs_packed_percent": -20, "gain_vs_random_percent": null, "crossing": [6, 4], "busiest_node_off_node": 6, "predicted_seconds": null, "repaired_ranks": [], "mapping": [3, 2, 1, 0]},
    {"method": "refine", "cost": 6, "computed_cost": 6, "vs_bound_percent": 20, "seconds": 0, "gain_vs_packed_percent": 16.66666667, "gain_vs_random_percent": null, "crossing": [4, 2], "busiest_node_off_node": 4, "predicted_seconds": null, "started_from": "packed", "repaired_ranks": [1, 3], "mapping": [1, 0, 2, 3]}
  ]
}
)";
  // The same lines (a row per method), and the same values, numbers to 1e-9 (the report writes
  // each double exactly, 39.99999999999999 for 100 x (7 / 5 - 1)).
  auto lines = [](const std::string& text) {
    std::vector<std::string> split;
    std::istringstream in(text);
    for (std::string line; std::getline(in, line);) split.push_back(line);
    return split;
  };
  const auto got_lines = lines(out.str()), expected_lines = lines(expected);
  ASSERT_EQ(got_lines.size(), expected_lines.size()) << out.str();
  for (std::size_t i = 0; i < got_lines.size(); ++i) {
    const auto got = got_lines[i].find(':'), want = expected_lines[i].find(':');
    EXPECT_EQ(got_lines[i].substr(0, got), expected_lines[i].substr(0, want)) << "line " << i + 1;
  }
  expect_same_json(Json::parse(out.str()), Json::parse(expected), "");
}

}  // namespace
}  // namespace mpimon
