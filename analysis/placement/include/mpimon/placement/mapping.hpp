#pragma once
// The traffic a placement reads and the cost model it minimises (docs/placement.md): the
// undirected affinity graph folded from a dump's matrix, a mapping (a leaf of the tree per rank),
// its cost and traffic per level, and a lower bound on any mapping's cost.
//
// A mapping gives each MPI_COMM_WORLD rank a leaf of the tree (topology.hpp). Everything reads the
// traffic as a list of non-zeros; nothing here is N x N.

#include <cstdint>
#include <utility>
#include <vector>

#include "mpimon/matrices/matrix.hpp"
#include "mpimon/placement/topology.hpp"

namespace mpimon {

/// The undirected traffic: pairs i < j with weight w_ij = M_ij + M_ji, built from the non-zeros.
struct AffinityGraph {
  std::uint32_t order = 0;
  struct Edge {
    std::uint32_t a, b;
    std::uint64_t weight;
  };
  std::vector<Edge> edges;
  /// Per-rank adjacency (both directions) into `edges` for local search.
  [[nodiscard]] std::vector<std::vector<std::pair<std::uint32_t, std::uint64_t>>> adjacency() const;
};
/// Folds a directed square matrix; throws Error::Kind::input when it is not square.
AffinityGraph fold_traffic(const SparseMatrix& directed);
/// Folds a list of directed edges (a -> b, weight) of `order` vertices as fold_traffic folds a
/// matrix: w_ab sums every edge between a and b either way; self-loops and zero weights are dropped.
/// O(edges log edges), nothing N x N. Throws Error::Kind::input on an endpoint >= order or a sum
/// beyond 64 bits.
AffinityGraph fold_edges(std::uint32_t order, std::vector<AffinityGraph::Edge> directed);

using Mapping = std::vector<std::uint64_t>;  ///< leaf of each rank

/// Puts every rank that shares a leaf or sits on an excluded one on the free usable leaf that costs
/// least given where its peers are (for mappers that balance rather than inject, or ignore exclusions).
/// Of ranks sharing a leaf the lowest keeps it. Returns the ranks it moved, in increasing order.
std::vector<std::uint32_t> repair_mapping(const AffinityGraph& graph, const TreeTopology& topo, Mapping& mapping);

/// Throws Error::Kind::input unless `mapping` puts `order` ranks on distinct usable leaves of `topo`.
void check_mapping(const Mapping& mapping, std::uint32_t order, const TreeTopology& topo);

/// The placement metrics, computed by mpimon (not TreeMatch's evaluator).
struct PlacementMetrics {
  uint128 cost = 0;                   ///< sum over pairs of w_ij x distance
  std::vector<uint128> crossing;      ///< [l]: traffic between different subtrees of level l
  uint128 busiest_node_off_node = 0;  ///< max over nodes of the traffic leaving that node
};
PlacementMetrics evaluate_mapping(const AffinityGraph& graph, const TreeTopology& topo, const Mapping& mapping);

/// A lower bound on the cost of any mapping of `graph` onto `topo`, computed from the weights and
/// the tree alone: per level, the largest of three bounds on the traffic that must cross between
/// its subtrees (placement_bound.cpp).
uint128 placement_lower_bound(const AffinityGraph& graph, const TreeTopology& topo);

/// The cost model in one sentence, as `mpimon place`'s table and JSON state it.
inline constexpr const char* kPlacementModel =
    "modelled cost: sum over rank pairs of (traffic i->j + j->i) x the cost of their lowest common level, "
    "link costs added from that level down (as TreeMatch and Scotch aggregate a tleaf)";

}  // namespace mpimon
