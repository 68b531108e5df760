// A mapping applied by Slurm (docs/placement.md, "Under Slurm"): the expected hosts, CPU lists and
// renumbered leaves are worked out by hand below from srun's rules (rank r on the r-th line of
// SLURM_HOSTFILE; map_cpu's i-th entry binds the task of local id i, the node's ranks in rank order).
#include <gtest/gtest.h>

#include <random>
#include <set>

#include "mpimon/base/error.hpp"
#include "mpimon/placement/placement.hpp"

namespace mpimon {
namespace {

using Cpus = std::vector<std::uint64_t>;

TEST(MachineShape, NodesSocketsAndCoresOfEachForm) {
  EXPECT_EQ(machine_shape(parse_topology("2x2x4")).text(), "2 nodes x 2 sockets x 4 cores");
  EXPECT_EQ(machine_shape(parse_topology("4x1x4")).text(), "4 nodes x 1 socket x 4 cores");
  const MachineShape tleaf = machine_shape(parse_topology("tleaf 2 4 10 2 1"));  // nodes, then cores
  EXPECT_EQ(tleaf.nodes, 4u);
  EXPECT_EQ(tleaf.sockets, 1u);
  EXPECT_EQ(tleaf.cores, 2u);
  EXPECT_EQ(machine_shape(with_slots(parse_topology("2x2x4"), 3)).cores, 4u);  // slots are not cores
}

// 2 nodes x 2 sockets x 4 cores: leaf = node x 8 + socket x 4 + core.
TEST(SlurmPlacement, HostsInRankOrderAndEachNodesCpusInLocalIdOrder) {
  const TreeTopology t = parse_topology("2x2x4");
  const SlurmPlacement p = slurm_placement({0, 5, 9, 15, 2}, t, {"a", "b"});
  EXPECT_EQ(p.rank_hosts, (std::vector<std::string>{"a", "a", "b", "b", "a"}));
  ASSERT_EQ(p.node_cpus.size(), 2u);
  EXPECT_EQ(p.node_cpus[0], (std::pair<std::string, Cpus>{"a", {0, 5, 2}}));  // ranks 0, 1, 4
  EXPECT_EQ(p.node_cpus[1], (std::pair<std::string, Cpus>{"b", {1, 7}}));     // ranks 2, 3
  EXPECT_TRUE(p.map_cpu.empty());  // [1, 7] is no prefix of [0, 5, 2]: no one list binds both
  EXPECT_THROW(slurm_placement({0, 9}, t, {"a"}), Error);
}

TEST(SlurmPlacement, RenumberedWithinNodesOneListServesEveryNode) {
  const TreeTopology t = parse_topology("2x2x4");
  // Node a: rank 0 on s0c0, rank 1 on s1c1, rank 4 on s0c2 -> s0 stays 0, s1 is reached second (1),
  // its c1 first (0); s0's c2 is its second core (1): leaves 0, 4, 1. Node b: rank 2 on s0c1, rank 3
  // on s1c3 -> 8 + 0, 8 + 4.
  const Mapping renumbered = renumber_within_nodes({0, 5, 9, 15, 2}, t);
  EXPECT_EQ(renumbered, (Mapping{0, 4, 8, 12, 1}));
  const SlurmPlacement p = slurm_placement(renumbered, t, {"a", "b"});
  EXPECT_EQ(p.map_cpu, (Cpus{0, 4, 1}));  // node b's [0, 4] is its prefix
  // A node whose ranks sit on one socket, the other's on two: the lists still differ.
  EXPECT_TRUE(slurm_placement(renumber_within_nodes({0, 1, 8, 12}, t), t, {"a", "b"}).map_cpu.empty());
}

TEST(SlurmPlacement, RenumberingKeepsEveryDistanceAndNode) {
  const TreeTopology t = parse_topology("3x2x3");
  for (std::uint64_t seed = 1; seed <= 50; ++seed) {
    const Mapping m = random_mapping(12, t, seed);
    const Mapping r = renumber_within_nodes(m, t);
    EXPECT_EQ(std::set<std::uint64_t>(r.begin(), r.end()).size(), r.size()) << "seed " << seed;
    for (std::size_t i = 0; i < m.size(); ++i) {
      EXPECT_EQ(r[i] / 6, m[i] / 6) << "seed " << seed << " rank " << i;
      for (std::size_t j = 0; j < m.size(); ++j) EXPECT_EQ(t.distance(r[i], r[j]), t.distance(m[i], m[j]));
    }
  }
}

TEST(SlurmPlacement, LeftAsIsWithExcludedLeaves) {
  const TreeTopology t = with_excluded(parse_topology("2x2x4"), {0});
  EXPECT_EQ(renumber_within_nodes({5, 9}, t), (Mapping{5, 9}));
}

}  // namespace
}  // namespace mpimon
