#pragma once
// The cluster a placement tree describes, as a SimGrid platform (`mpimon simulate --topology`,
// docs/simulate.md). The rankfiles that place ranks on it: mapping_files.hpp.
//
// A tree's nodes become SimGrid hosts named as `mpimon place` names them without --hosts (node0,
// node1, ...: default_hosts), each with as many cores as the node has leaves; the levels above the nodes become the
// network (a fat tree, or one switch), with the rate and latency of TreeTopology::links; the levels
// inside a node become each host's loopback link (SimGrid models a host's cores as one), whose rate
// is the slowest of those levels and whose latency is twice their sum (the farthest pair of cores).

#include <cstdint>
#include <map>
#include <optional>
#include <ostream>
#include <string>
#include <vector>

#include "mpimon/placement/topology.hpp"

namespace mpimon {

/// The network between the nodes of a simulated cluster.
enum class SimulatedNetwork {
  fat_tree,  ///< SimGrid's FAT_TREE over the levels above the nodes, full bisection (k uplinks per k downlinks)
  flat,      ///< one switch: every node's own link to a crossbar (the emulated cluster's bridge)
};
/// "fat-tree" or "flat"; throws Error::Kind::usage naming `option` otherwise.
SimulatedNetwork parse_simulated_network(const std::string& text, const std::string& option);
const char* simulated_network_name(SimulatedNetwork network);

/// The host speed of a written platform, flops per second of each core (docs/simulate.md).
inline constexpr double kSimulatedHostFlops = 1e9;

/// Writes the platform (SimGrid's XML, version 4.1) of `topo`. Every level needs a link with a
/// positive rate in topo.links; a fat tree needs the same link on every level above the nodes
/// (SimGrid's fat trees have one link rate): otherwise Error::Kind::usage. The cluster zone carries
/// the tree as properties (mpimon_tleaf, mpimon_node_levels, mpimon_socket_levels), read back by
/// platform_topology.
void write_simgrid_platform(const TreeTopology& topo, SimulatedNetwork network, std::ostream& out);

/// The tree of a platform write_simgrid_platform wrote, from its zone properties (as
/// mpimon-simgrid-platform lists them: key -> value); nothing when they are absent.
std::optional<TreeTopology> platform_topology(const std::map<std::string, std::string>& properties);

}  // namespace mpimon
