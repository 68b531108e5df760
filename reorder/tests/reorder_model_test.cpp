// The reordering's model without MPI: the machine as a tree, the declared graphs, the decision.
// Expected values are worked by hand or found by brute force here, with the test's own distances.
#include <gtest/gtest.h>

#include <algorithm>
#include <functional>
#include <numeric>
#include <tuple>

#include "mpimon/base/error.hpp"
#include "reorder_model.hpp"

namespace mpimon::reorder {
namespace {

std::vector<ProcessPlace> unbound(const std::vector<std::string>& hosts) {
  std::vector<ProcessPlace> p;
  for (const auto& h : hosts) p.push_back({h, false, 0, 0, 1, 1});
  return p;
}

ProcessPlace bound(const std::string& host, std::uint32_t package, std::uint32_t core, std::uint32_t packages,
                   std::uint32_t cores) {
  return {host, true, package, core, packages, cores};
}

TEST(ReorderMachine, UnboundProcessesArePlacedByNode) {
  // Hosts in the order the processes report them: the nodes are numbered by first appearance.
  const Machine m = machine_model(unbound({"b", "a", "b", "a", "c", "c"}));
  EXPECT_EQ(m.topo.tleaf(), "tleaf 2 3 100 2 0");
  EXPECT_EQ(m.nodes, 3u);
  EXPECT_FALSE(m.by_core);
  EXPECT_EQ(m.leaf_of, (std::vector<std::uint64_t>{0, 2, 1, 3, 4, 5}));
  EXPECT_EQ(m.topo.usable_leaves(), 6u);
  EXPECT_FALSE(m.uniform());
}

TEST(ReorderMachine, UnevenNodesLeaveFreePlacesExcluded) {
  const Machine m = machine_model(unbound({"a", "a", "a", "b"}));
  EXPECT_EQ(m.topo.tleaf(), "tleaf 2 2 100 3 0");
  EXPECT_EQ(m.leaf_of, (std::vector<std::uint64_t>{0, 1, 2, 3}));
  EXPECT_EQ(m.topo.excluded, (std::vector<bool>{false, false, false, false, true, true}));
}

TEST(ReorderMachine, BoundProcessesArePlacedByCore) {
  // One node of 2 packages x 2 cores, one process per core.
  const Machine m =
      machine_model({bound("n", 1, 1, 2, 2), bound("n", 0, 0, 2, 2), bound("n", 0, 1, 2, 2), bound("n", 1, 0, 2, 2)});
  EXPECT_TRUE(m.by_core);
  EXPECT_EQ(m.topo.tleaf(), "tleaf 2 2 10 2 1");
  EXPECT_EQ(m.leaf_of, (std::vector<std::uint64_t>{3, 0, 1, 2}));
}

TEST(ReorderMachine, ProcessesSharingACoreGetSlots) {
  const Machine m =
      machine_model({bound("n", 0, 0, 1, 2), bound("n", 0, 1, 1, 2), bound("n", 0, 0, 1, 2), bound("n", 0, 1, 1, 2)});
  EXPECT_EQ(m.topo.tleaf(), "tleaf 2 2 1 2 0");
  EXPECT_EQ(m.leaf_of, (std::vector<std::uint64_t>{0, 2, 1, 3}));
}

TEST(ReorderMachine, SomeUnboundMeansByNodeWithANote) {
  auto places = unbound({"a", "b"});
  places[0] = bound("a", 0, 0, 1, 2);
  const Machine m = machine_model(places);
  EXPECT_FALSE(m.by_core);
  EXPECT_EQ(m.topo.tleaf(), "tleaf 1 2 100");
  EXPECT_NE(m.note.find("1 of 2 processes are not bound"), std::string::npos) << m.note;
}

TEST(ReorderMachine, OneNodeUnboundIsUniform) {
  const Machine m = machine_model(unbound({"a", "a", "a"}));
  EXPECT_TRUE(m.uniform());
  EXPECT_EQ(m.nodes, 1u);
}

using Edges = std::vector<DirectedEdge>;
bool same(Edges a, Edges b) {
  auto key = [](const DirectedEdge& e) { return std::tuple(e.a, e.b, e.weight); };
  auto less = [&](const DirectedEdge& x, const DirectedEdge& y) { return key(x) < key(y); };
  std::sort(a.begin(), a.end(), less);
  std::sort(b.begin(), b.end(), less);
  return std::equal(a.begin(), a.end(), b.begin(), b.end(), [&](auto& x, auto& y) { return key(x) == key(y); });
}

TEST(ReorderGraphs, CartesianNeighboursWithPeriodicity) {
  // A ring of 3: each vertex to both neighbours.
  EXPECT_TRUE(same(cart_edges({3}, {1}), {{0, 2, 1}, {0, 1, 1}, {1, 0, 1}, {1, 2, 1}, {2, 1, 1}, {2, 0, 1}}));
  // A periodic dimension of 2: the neighbour is both the one below and the one above.
  EXPECT_TRUE(same(cart_edges({2}, {1}), {{0, 1, 1}, {0, 1, 1}, {1, 0, 1}, {1, 0, 1}}));
  // 2 x 2, not periodic, row-major: 0=(0,0) 1=(0,1) 2=(1,0) 3=(1,1).
  EXPECT_TRUE(same(cart_edges({2, 2}, {0, 0}),
                   {{0, 2, 1}, {0, 1, 1}, {1, 3, 1}, {1, 0, 1}, {2, 0, 1}, {2, 3, 1}, {3, 1, 1}, {3, 2, 1}}));
  // A dimension of 1, periodic: its own neighbour, no edge.
  EXPECT_TRUE(cart_edges({1, 1}, {1, 1}).empty());
}

TEST(ReorderGraphs, GraphCreateEdges) {
  // MPI's example: index {2, 3, 4, 6}, edges {1, 3, 0, 3, 0, 2}.
  EXPECT_TRUE(same(graph_edges({2, 3, 4, 6}, {1, 3, 0, 3, 0, 2}),
                   {{0, 1, 1}, {0, 3, 1}, {1, 0, 1}, {2, 3, 1}, {3, 0, 1}, {3, 2, 1}}));
}

// ---- Decisions ------------------------------------------------------------------------------

// A 4 x 4 torus, one undirected edge (weight 1) per pair of grid neighbours, on vertices
// position_of[...]: vertex v sits at grid position pos[v].
Edges torus(const std::vector<int>& pos) {
  std::vector<int> vertex_at(16);
  for (int v = 0; v < 16; ++v) vertex_at[static_cast<std::size_t>(pos[static_cast<std::size_t>(v)])] = v;
  Edges e;
  for (int r = 0; r < 4; ++r) {
    for (int c = 0; c < 4; ++c) {
      const auto here = static_cast<std::uint32_t>(vertex_at[static_cast<std::size_t>(r * 4 + c)]);
      e.push_back({here, static_cast<std::uint32_t>(vertex_at[static_cast<std::size_t>(r * 4 + (c + 1) % 4)]), 1});
      e.push_back({here, static_cast<std::uint32_t>(vertex_at[static_cast<std::size_t>(((r + 1) % 4) * 4 + c)]), 1});
    }
  }
  return e;
}

// The fewest edges between groups over every partition of the 16 vertices into 4 groups of 4.
int fewest_crossing_edges(const Edges& edges) {
  std::vector<int> group(16, -1);
  int best = 1 << 30;
  std::function<void(int)> fill = [&](int g) {
    if (g == 4) {
      int crossing = 0;
      for (const auto& e : edges) crossing += group[e.a] != group[e.b];
      best = std::min(best, crossing);
      return;
    }
    const int first = static_cast<int>(std::find(group.begin(), group.end(), -1) - group.begin());
    group[static_cast<std::size_t>(first)] = g;
    for (int a = first + 1; a < 16; ++a) {
      if (group[static_cast<std::size_t>(a)] != -1) continue;
      group[static_cast<std::size_t>(a)] = g;
      for (int b = a + 1; b < 16; ++b) {
        if (group[static_cast<std::size_t>(b)] != -1) continue;
        group[static_cast<std::size_t>(b)] = g;
        for (int c = b + 1; c < 16; ++c) {
          if (group[static_cast<std::size_t>(c)] != -1) continue;
          group[static_cast<std::size_t>(c)] = g;
          fill(g + 1);
          group[static_cast<std::size_t>(c)] = -1;
        }
        group[static_cast<std::size_t>(b)] = -1;
      }
      group[static_cast<std::size_t>(a)] = -1;
    }
    group[static_cast<std::size_t>(first)] = -1;
  };
  fill(0);
  return best;
}

std::vector<std::string> four_nodes_of_four() {
  std::vector<std::string> hosts;
  for (int p = 0; p < 16; ++p) hosts.push_back("node" + std::to_string(p / 4));
  return hosts;
}

int crossing_of(const Edges& edges, const std::vector<std::uint32_t>& process_of,
                const std::vector<std::string>& hosts) {
  int crossing = 0;
  for (const auto& e : edges) crossing += hosts[process_of[e.a]] != hosts[process_of[e.b]];
  return crossing;
}

// The most of `process_of`'s vertices that a permutation of the 4 nodes of 4 brings home (vertex v on
// process v; processes p on node p / 4, a node's processes interchangeable), vertex 0 counting 16.
std::uint32_t most_home(const std::vector<std::uint32_t>& process_of) {
  std::vector<std::uint32_t> perm{0, 1, 2, 3};
  std::uint32_t best = 0;
  do {
    std::uint32_t home = 0;
    for (std::uint32_t v = 0; v < process_of.size(); ++v) home += perm[process_of[v] / 4] == v / 4 ? (v ? 1 : 16) : 0;
    best = std::max(best, home);
  } while (std::next_permutation(perm.begin(), perm.end()));
  return best;
}

TEST(ReorderDecide, ScrambledTorusOnFourNodesReachesTheOptimum) {
  // Vertex v at grid position (5 v) mod 16 ... scrambled so that every grid edge crosses nodes
  // when vertex v runs on process v (4 consecutive processes per node).
  std::vector<int> pos(16);
  for (int v = 0; v < 16; ++v) pos[static_cast<std::size_t>(v)] = (v % 4) * 4 + (v / 4 + v % 4) % 4;
  const Edges edges = torus(pos);
  const auto hosts = four_nodes_of_four();
  std::vector<std::uint32_t> identity(16);
  std::iota(identity.begin(), identity.end(), 0u);
  ASSERT_EQ(crossing_of(edges, identity, hosts), 32) << "the scramble puts every edge between nodes";
  const int optimum = fewest_crossing_edges(edges);
  EXPECT_EQ(optimum, 16);  // also by construction: 4 triangle-free vertices hold at most 4 edges
  const Decision d = decide(16, edges, machine_model(unbound(hosts)), 5.0);
  ASSERT_TRUE(d.reordered) << d.note;
  EXPECT_EQ(crossing_of(edges, d.process_of, hosts), optimum);
  EXPECT_EQ(d.between_before, 32);
  EXPECT_EQ(d.between_after, optimum);
  EXPECT_EQ(d.cost_before, 32 * 100);
  EXPECT_EQ(d.cost_after, optimum * 100);
  auto sorted = d.process_of;
  std::sort(sorted.begin(), sorted.end());
  EXPECT_EQ(sorted, identity) << "a permutation of the processes";
  // Rank 0 kept, and as many others as a permutation of the nodes allows.
  EXPECT_TRUE(d.rank0_kept);
  EXPECT_EQ(d.process_of[0], 0u);
  std::uint32_t kept = 0;
  for (std::uint32_t v = 0; v < 16; ++v) kept += d.process_of[v] == v;
  EXPECT_EQ(d.kept, kept);
  EXPECT_EQ(kept + 15, most_home(d.process_of));
}

TEST(ReorderDecide, AnOptimalOrderIsKept) {
  // Row r of the torus on node r: 16 edges between nodes, the optimum.
  std::vector<int> pos(16);
  std::iota(pos.begin(), pos.end(), 0);
  const Decision d = decide(16, torus(pos), machine_model(unbound(four_nodes_of_four())), 5.0);
  EXPECT_FALSE(d.reordered);
  EXPECT_EQ(d.kept, 16u);
  EXPECT_TRUE(d.rank0_kept);
  EXPECT_EQ(d.between_before, 16);
  EXPECT_EQ(d.between_after, 16);
  EXPECT_EQ(d.method, "identity");
  EXPECT_NE(d.note, "");
}

TEST(ReorderDecide, FewerVerticesThanProcesses) {
  // A 4 x 4 mesh (not periodic) on 5 nodes of 4: 24 edges; parts of at most 4 vertices of a
  // triangle-free grid hold at most 4 edges each, so at least 24 - 16 = 8 cross: 2 x 2 blocks.
  Edges mesh;
  for (std::uint32_t r = 0; r < 4; ++r) {
    for (std::uint32_t c = 0; c < 4; ++c) {
      if (c < 3) mesh.push_back({r * 4 + c, r * 4 + c + 1, 1});
      if (r < 3) mesh.push_back({r * 4 + c, (r + 1) * 4 + c, 1});
    }
  }
  std::vector<std::string> hosts;
  for (int p = 0; p < 20; ++p) hosts.push_back("node" + std::to_string(p % 5));  // cyclic: rows spread
  const Decision d = decide(16, mesh, machine_model(unbound(hosts)), 5.0);
  ASSERT_TRUE(d.reordered) << d.note;
  ASSERT_EQ(d.process_of.size(), 16u);
  auto sorted = d.process_of;
  std::sort(sorted.begin(), sorted.end());
  EXPECT_TRUE(std::adjacent_find(sorted.begin(), sorted.end()) == sorted.end() && sorted.back() < 20);
  EXPECT_EQ(crossing_of(mesh, d.process_of, hosts), 8);
  EXPECT_EQ(d.between_after, 8);
}

TEST(ReorderDecide, CoresOfOneNodeByBruteForce) {
  // 8 processes bound to the 8 cores of one node (2 packages x 4 cores), process p on core p; four
  // heavy pairs scrambled across the packages, light traffic elsewhere. Distances: 1 within a
  // package, 11 across (10 + 1), as the tree-leaf adds them; the optimum over all 8! orders.
  std::vector<ProcessPlace> places;
  for (std::uint32_t p = 0; p < 8; ++p) places.push_back(bound("n", p / 4, p % 4, 2, 4));
  const Edges edges{{0, 5, 1000}, {1, 6, 1000}, {2, 7, 1000}, {3, 4, 1000}, {0, 1, 10}, {2, 3, 7}, {4, 6, 3}};
  auto distance = [](std::uint32_t x, std::uint32_t y) { return x == y ? 0 : (x / 4 == y / 4 ? 1 : 11); };
  auto cost = [&](const std::vector<std::uint32_t>& process_of) {
    double c = 0;
    for (const auto& e : edges) c += static_cast<double>(e.weight) * distance(process_of[e.a], process_of[e.b]);
    return c;
  };
  std::vector<std::uint32_t> perm(8);
  std::iota(perm.begin(), perm.end(), 0u);
  const double before = cost(perm);
  double best = before;
  do best = std::min(best, cost(perm));
  while (std::next_permutation(perm.begin(), perm.end()));
  const Decision d = decide(8, edges, machine_model(places), 5.0);
  ASSERT_TRUE(d.reordered);
  EXPECT_EQ(d.cost_before, before);
  EXPECT_EQ(d.cost_after, best);
  EXPECT_EQ(cost(d.process_of), best);
}

TEST(ReorderDecide, NothingToGain) {
  const Edges ring{{0, 1, 5}, {1, 2, 5}, {2, 0, 5}};
  const Decision one_node = decide(3, ring, machine_model(unbound({"a", "a", "a"})), 1.0);
  EXPECT_FALSE(one_node.reordered);
  EXPECT_NE(one_node.note.find("one node"), std::string::npos) << one_node.note;
  const Decision no_edges = decide(3, Edges{}, machine_model(unbound({"a", "b", "a"})), 1.0);
  EXPECT_FALSE(no_edges.reordered);
  EXPECT_NE(no_edges.note.find("no traffic"), std::string::npos) << no_edges.note;
}

TEST(ReorderDecide, OutOfRangeEdgesAreRefused) {
  EXPECT_THROW(decide(3, Edges{{0, 3, 1}}, machine_model(unbound({"a", "b", "a"})), 1.0), Error);
}

}  // namespace
}  // namespace mpimon::reorder
