#pragma once
// The mapping algorithms, by family (docs/placement.md, "Methods"): the baselines, the local search
// on the cost model, METIS multisection, Scotch and TreeMatch. The method table (methods.hpp) puts
// each behind one interface; these are what its entries call, and what the tests call directly.

#include <cstdint>
#include <string>
#include <vector>

#include "mpimon/placement/mapping.hpp"
#include "mpimon/placement/topology.hpp"

namespace mpimon {

/// Baselines. packed: rank i on leaf i. cyclic: rank i on node i mod nodes (Open MPI's --map-by
/// node; on a single node, socket i mod sockets). random: a seeded uniform injection.
Mapping packed_mapping(std::uint32_t order, const TreeTopology& topo);
Mapping cyclic_mapping(std::uint32_t order, const TreeTopology& topo);
Mapping random_mapping(std::uint32_t order, const TreeTopology& topo, std::uint64_t seed);

/// Local search under the cost model: each rank tries the leaves of the bottom subtrees where its
/// heaviest peers are (swapping with their occupant, or moving to a free leaf), the best gain
/// first, until no such swap helps or `max_seconds` pass; small trees also get passes over every
/// pair of leaves. Never returns a mapping costlier than `start`. O(non-zeros) memory.
Mapping refine_mapping(const AffinityGraph& graph, const TreeTopology& topo, Mapping start, double max_seconds = 10.0);

/// Global multisection: the ranks split along the hierarchy with METIS, one subtree at a time,
/// each part balanced exactly to its subtree's leaves (filled in order when there are fewer ranks).
/// `seed` is METIS's seed (even: recursive bisection, odd: k-way).
Mapping multisection_mapping(const AffinityGraph& graph, const TreeTopology& topo, std::uint64_t seed);

/// Scotch's SCOTCH_graphMap of the graph onto SCOTCH_archTleaf of the same tree (quality strategy,
/// imbalance 0: what `scotch_gmap -cq -b0` computes), repaired into an injection when Scotch puts
/// two ranks on one leaf (the ranks moved in *repaired). Runs in a child process stopped after
/// `seconds` (then: an empty mapping and *timed_out set).
Mapping scotch_mapping(const AffinityGraph& graph, const TreeTopology& topo, double seconds = 1e9,
                       bool* timed_out = nullptr, std::vector<std::uint32_t>* repaired = nullptr);

/// Where the TreeMatch library is: Open MPI 4.1's topo/treematch component exports it.
struct TreeMatchLibrary {
  std::string path;     ///< the shared object that was loaded, or "" when none
  std::string problem;  ///< why it is not available ("" when it is)
};
/// Looks for the library ($MPIMON_TREEMATCH_LIB first, then Open MPI's component directories).
TreeMatchLibrary find_treematch();
/// TreeMatch's mapping (tm_build_tree_from_topology + tm_compute_mapping on the tree-leaf and the
/// folded matrix; the one N x N step: TreeMatch takes a dense matrix), computed in a child process
/// because the library exits on errors. Throws Error::Kind::system when the library is missing or
/// fails; stopped after `seconds` (then: an empty mapping and *timed_out set).
Mapping treematch_mapping(const AffinityGraph& graph, const TreeTopology& topo, double seconds = 1e9,
                          bool* timed_out = nullptr);

}  // namespace mpimon
