#pragma once
// The machine placed on, from what the user says of it (`mpimon place`, `report` and `probe`;
// docs/placement.md): --topology or the mpimon cluster of --hostfile, the links' rates and
// latencies of --link, --links or that cluster, --exclude-leaves and --slots-per-leaf.

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "mpimon/placement/topology.hpp"

namespace mpimon {

/// An mpimon cluster as its hostfile describes it (the harness reads it, harness/cluster.hpp).
struct ClusterMachine {
  std::string name;
  std::string hostfile;  ///< the hostfile it was read from
  std::uint64_t nodes = 0;
  std::string node_xml;  ///< one node's hwloc XML
  std::string rate;      ///< its links' rate between the nodes (base/units.hpp; "" or "none": not limited)
};

/// The options that describe the machine, as given.
struct MachineOptions {
  std::string topology;                   ///< --topology ("": the cluster's)
  std::optional<ClusterMachine> cluster;  ///< the mpimon cluster of --hostfile, when it names one
  std::vector<std::string> link;          ///< --link RATE,LATENCY per level, top first
  std::string links_file;                 ///< --links (mpimon probe's file)
  std::string exclude_leaves;             ///< --exclude-leaves: leaf indices and ranges, "0,8-9"
  std::uint32_t slots_per_leaf = 1;       ///< --slots-per-leaf
};

/// The tree a placement maps onto, and what the user is told of it.
struct PlacementMachine {
  TreeTopology topo;
  std::string links_from;  ///< where the links came from ("" when there are none)
  /// "topology 2 nodes x 1 socket x 4 cores of cluster C (--hostfile F)" when the cluster gave the
  /// tree; "" otherwise.
  std::string note;
};

/// The tree of --topology (or of the cluster; both given, they must agree), with the links of
/// --link, --links or the cluster (its rate between the nodes; the latency it does not know),
/// --exclude-leaves and --slots-per-leaf applied. Throws Error::Kind::usage naming the option.
PlacementMachine placement_machine(const MachineOptions& o);

}  // namespace mpimon
