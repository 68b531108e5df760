#pragma once
// The part of the reordering that needs no MPI (unit-tested alone): the machine the processes run
// on, as a tree of the placement library; the graphs the MPI topology constructors declare; and the
// decision, computed on one process: which process plays which vertex.

#include <cstdint>
#include <string>
#include <vector>

#include "mpimon/placement/placement.hpp"

namespace mpimon::reorder {

/// Where one process runs, as it sees itself: its host and, when it is bound to one core, that core.
struct ProcessPlace {
  std::string host;
  bool bound = false;                                 ///< bound to one core (its cpuset lies within one core)
  std::uint32_t package = 0, core = 0;                ///< the core: package index, core index within the package
  std::uint32_t packages = 1, cores_per_package = 1;  ///< the shape of its node
};

/// The processes' places as a tree-leaf topology: nodes (link cost 100), packages (10), cores (1)
/// when every process is bound to one core and the nodes have one shape, else nodes only; a bottom
/// level of slots (cost 0) when several processes share a place. Leaves nobody occupies are excluded.
struct Machine {
  TreeTopology topo;
  std::vector<std::uint64_t> leaf_of;  ///< per process (rank of the communicator)
  std::uint32_t nodes = 0;
  bool by_core = false;
  std::string note;  ///< why the processes are placed by node although some are bound ("" otherwise)
  /// Every pair of processes is at the same distance: no order can be cheaper than another.
  [[nodiscard]] bool uniform() const;
};
Machine machine_model(const std::vector<ProcessPlace>& places);

/// A directed edge of a declared graph: a -> b (ranks), with its weight.
using DirectedEdge = AffinityGraph::Edge;

/// The graph of MPI_Cart_create: each vertex (row-major coordinates) to its neighbour one step down
/// and up every dimension, wrapping where the dimension is periodic (an edge to itself dropped; a
/// periodic dimension of 2 gives the neighbour twice), weight 1 per message of a neighbourhood exchange.
std::vector<DirectedEdge> cart_edges(const std::vector<int>& dims, const std::vector<int>& periods);
/// The graph of MPI_Graph_create: vertex i to each of edges[index[i-1] .. index[i]), weight 1.
std::vector<DirectedEdge> graph_edges(const std::vector<int>& index, const std::vector<int>& edges);

/// `mapping` (vertex -> leaf) relabelled by the symmetries of `topo`: subtrees of one shape under
/// one parent exchanged (nodes of one shape, packages of a node, cores of a package, slots of a place;
/// a shape counts which leaves are usable), which moves no pair of leaves closer or further apart and
/// so leaves the modelled cost as it is. Of all such relabellings, one that puts vertex 0 on home[0]
/// whenever one does, and then the most vertices v on home[v] (process v's place, so that process v
/// keeps rank v): a maximum-weight assignment of subtrees per parent, from the leaves up (exact up to
/// `exact_limit` subtrees a side, the heaviest pairs first beyond). Throws Error::Kind::input when a
/// vertex or a home is an excluded leaf or there are fewer homes than vertices.
Mapping keep_ranks(const Mapping& mapping, const TreeTopology& topo, const std::vector<std::uint64_t>& home,
                   std::size_t exact_limit = 512);

struct Decision {
  bool reordered = false;
  std::vector<std::uint32_t> process_of;  ///< the process (rank of the communicator) of each vertex
  std::uint64_t edges = 0;                ///< undirected edges of non-zero weight
  double cost_before = 0, cost_after = 0, between_before = 0, between_after = 0;
  std::uint32_t kept = 0;  ///< vertices v on process v: processes that keep their rank
  bool rank0_kept = true;  ///< process 0 keeps rank 0
  std::string method = "identity", note;
};

/// Maps `vertices` vertices (at most the number of processes) onto the processes: the placement
/// library's default method (METIS multisection and the local search, also from the current order)
/// within `time_limit` seconds, kept only when cheaper than the current order (vertex v on process v);
/// the mapping found is relabelled by keep_ranks (the cost checked unchanged), so that process 0
/// keeps rank 0 and as many others as the machine's symmetries allow keep theirs.
Decision decide(std::uint32_t vertices, const AffinityGraph& graph, const Machine& machine, double time_limit);
/// The same from directed edges (folded as fold_edges folds them; its errors on bad edges).
Decision decide(std::uint32_t vertices, const std::vector<DirectedEdge>& edges, const Machine& machine,
                double time_limit);

/// The default time limit of the mapping: vertices / 2000 s, at least 0.2 s and at most 10 s.
double default_time_limit(std::uint32_t vertices);

}  // namespace mpimon::reorder
