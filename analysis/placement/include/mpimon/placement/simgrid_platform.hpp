#pragma once
// The cluster a placement tree describes, as a SimGrid platform (`mpimon simulate --topology`,
// docs/simulate.md), and the rankfiles that place ranks on it.
//
// A tree's nodes become SimGrid hosts named as `mpimon place` names them without --hosts (node0,
// node1, ...), each with as many cores as the node has leaves; the levels above the nodes become the
// network (a fat tree, or one switch), with the rate and latency of TreeTopology::links; the levels
// inside a node become each host's loopback link (SimGrid models a host's cores as one), whose rate
// is the slowest of those levels and whose latency is twice their sum (the farthest pair of cores).

#include <cstdint>
#include <map>
#include <optional>
#include <ostream>
#include <string>
#include <vector>

#include "mpimon/placement/placement.hpp"

namespace mpimon {

/// The network between the nodes of a simulated cluster.
enum class SimulatedNetwork {
  fat_tree,  ///< SimGrid's FAT_TREE over the levels above the nodes, full bisection (k uplinks per k downlinks)
  flat,      ///< one switch: every node's own link to a crossbar (the emulated cluster's bridge)
};
/// "fat-tree" or "flat"; throws Error::Kind::usage naming `option` otherwise.
SimulatedNetwork parse_simulated_network(const std::string& text, const std::string& option);
const char* simulated_network_name(SimulatedNetwork network);

/// The hosts of a cluster of `nodes` nodes as mpimon names them: node0, node1, ...
std::vector<std::string> default_hosts(std::uint64_t nodes);

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

/// Where a rankfile puts one rank: `rank R=HOST slot=SOCKET:CORE` (Open MPI's syntax, as
/// write_rankfile writes it; `slot=CORE` is core CORE of the node).
struct RankfileEntry {
  std::string host;
  std::optional<std::uint32_t> socket;  ///< absent for slot=CORE
  std::uint32_t core = 0;
  std::size_t line = 0;  ///< where it is, for errors
};
/// Reads a rankfile for `np` ranks: one entry per rank 0..np-1 (blank lines and lines starting with
/// '#' skipped; ranks at or above np ignored, as mpirun does). Throws Error::Kind::input naming the
/// file and line for a line that is not `rank R=HOST slot=...`, a rank given twice or missing.
std::vector<RankfileEntry> read_rankfile(const std::string& path, std::uint32_t np);

/// The mapping (a leaf per rank) of a rankfile on `topo`, whose nodes are `hosts` in order: throws
/// Error::Kind::input naming the file and line when a rank names a host that is not one of them,
/// or a socket or core the node lacks.
Mapping rankfile_mapping(const std::vector<RankfileEntry>& entries, const TreeTopology& topo,
                         const std::vector<std::string>& hosts, const std::string& path);

}  // namespace mpimon
