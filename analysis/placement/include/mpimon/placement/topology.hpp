#pragma once
// The machine a placement maps onto (docs/placement.md): a balanced tree of nodes, sockets and
// cores, its modelled link costs and, for the time model, its links' rates and latencies.
//
// Leaves are numbered 0.. in tree order, as TreeMatch numbers a tree-leaf's leaves.

#include <cstdint>
#include <string>
#include <vector>

namespace mpimon {

/// The links below one level of a tree, as a network: what the time model and the simulator need
/// beyond the cost model's abstract link costs. Rates and latencies are parsed by base/units.hpp.
struct LinkSpec {
  double bits_per_second = 0;  ///< 0: unknown
  double latency_seconds = 0;
};

/// A balanced tree: `arity[l]` children per node of level l (top first), `link_cost[l]` the cost of
/// the links below level l. The cost of a pair whose lowest common level is l is the sum of
/// link_cost[l..] (aggregated as TreeMatch's tgt_to_tm and Scotch's tleaf distance do).
struct TreeTopology {
  std::vector<std::uint32_t> arity;
  std::vector<std::uint64_t> link_cost;
  /// How the levels map onto a cluster, for rankfiles: the top `node_levels` levels number the
  /// nodes, the next `socket_levels` the sockets of a node, the rest the cores of a socket.
  std::uint32_t node_levels = 0;
  std::uint32_t socket_levels = 0;
  std::string source;  ///< how the user wrote it ("8x2x4", a file name)
  /// --slots-per-leaf K > 1: the last level (arity K, link cost 0) holds the K ranks a core may run;
  /// the tree's leaves are then slots and core_of() gives the core (what the files name).
  std::uint32_t slots_per_core = 1;
  /// --exclude-leaves: slots that must stay free (empty: none).
  std::vector<bool> excluded;
  /// The links below each level, top first (empty: not given; the cost model does not read them).
  std::vector<LinkSpec> links;

  [[nodiscard]] std::uint32_t levels() const { return static_cast<std::uint32_t>(arity.size()); }
  [[nodiscard]] std::uint64_t leaves() const;
  [[nodiscard]] std::uint64_t nodes() const;  ///< product of the node levels' arities
  [[nodiscard]] std::uint64_t leaves_per_node() const { return leaves() / nodes(); }
  /// "tleaf L a0 c0 a1 c1 ...", single spaces: a line both TreeMatch and Scotch read.
  [[nodiscard]] std::string tleaf() const;
  /// The lowest common level of two different leaves (0 = they differ at the top level).
  [[nodiscard]] std::uint32_t common_level(std::uint64_t a, std::uint64_t b) const;
  /// The cost of a pair of leaves (0 for a leaf with itself).
  [[nodiscard]] std::uint64_t distance(std::uint64_t a, std::uint64_t b) const;
  [[nodiscard]] bool usable(std::uint64_t leaf) const { return excluded.empty() || !excluded[leaf]; }
  [[nodiscard]] std::uint64_t usable_leaves() const;
  [[nodiscard]] std::uint64_t core_of(std::uint64_t leaf) const { return leaf / slots_per_core; }
};

/// `topo` with up to `k` ranks per core: a bottom level of arity k and link cost 0 (k >= 1).
TreeTopology with_slots(TreeTopology topo, std::uint32_t k);
/// `topo` with the cores `cores` (indices of the tree without slots) kept free; throws
/// Error::Kind::usage naming --exclude-leaves when one is beyond the tree.
TreeTopology with_excluded(TreeTopology topo, const std::vector<std::uint64_t>& cores);

/// Default link costs of the NxSxC shorthand, top first: between nodes, sockets, cores.
inline constexpr std::uint64_t kNodeLinkCost = 100, kSocketLinkCost = 10, kCoreLinkCost = 1;

/// Parses a tree-leaf line ("tleaf L a0 c0 ...", any whitespace; `where` names it in errors).
TreeTopology parse_tleaf(const std::string& text, const std::string& where);
/// Parses what `--topology` accepts: a tleaf line, "NxSxC" (nodes x sockets x cores, default costs),
/// the name of a file holding a tleaf line (.tgt), an hwloc XML file (one node, cores as leaves), or
/// "N@node.xml" (N nodes of that shape under a network level of link cost kNodeLinkCost).
/// Throws Error::Kind::usage naming --topology when it is none of these.
TreeTopology parse_topology(const std::string& text);

/// A machine as a tree models it: its nodes, the sockets of a node, the cores of a socket (the
/// levels of node_levels and socket_levels; a tree without a level for them has one of each).
struct MachineShape {
  std::uint64_t nodes = 1, sockets = 1, cores = 1;
  [[nodiscard]] std::uint64_t cores_per_node() const { return sockets * cores; }
  /// "2 nodes x 1 socket x 4 cores"
  [[nodiscard]] std::string text() const;
};
MachineShape machine_shape(const TreeTopology& topo);

}  // namespace mpimon
