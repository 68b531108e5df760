#pragma once
// The files that carry a mapping (docs/placement.md), each writer beside its reader: mpimon's own
// "RANK LEAF" lines (--mapping-out, read back by --start-mapping), Open MPI's rankfile (--rankfile,
// read back by mpimon simulate), the hostfiles that name the nodes, and Slurm's SLURM_HOSTFILE with
// the --cpu-bind=map_cpu list (--slurm-hostfile).

#include <cstdint>
#include <optional>
#include <ostream>
#include <string>
#include <utility>
#include <vector>

#include "mpimon/placement/mapping.hpp"
#include "mpimon/placement/topology.hpp"

namespace mpimon {

/// "RANK LEAF" lines (the core, with --slots-per-leaf).
void write_mapping(const Mapping& mapping, const TreeTopology& topo, std::ostream& out);
/// Reads `--start-mapping`: the "RANK LEAF" lines write_mapping writes (LEAF a core with
/// --slots-per-leaf: the rank takes that core's first free slot), one per rank 0..order-1; blank
/// lines and lines starting with '#' are skipped. Two ranks may name one leaf (repair_mapping moves
/// the extras). Throws Error::Kind::usage naming the file and line for a line that is not two
/// numbers, a rank out of range or given twice, a leaf beyond the tree, and for missing ranks.
Mapping read_mapping(const std::string& path, std::uint32_t order, const TreeTopology& topo);

/// Open MPI's rankfile: "rank R=HOST slot=SOCKET:CORE" lines; throws Error::Kind::usage when there
/// are fewer hosts than the mapping uses nodes.
void write_rankfile(const Mapping& mapping, const TreeTopology& topo, const std::vector<std::string>& hosts,
                    std::ostream& out);
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

/// The hosts of an Open MPI hostfile: the first word of each line that is not blank or a comment.
std::vector<std::string> read_hostfile(const std::string& path);
/// The hosts of a cluster of `nodes` nodes as mpimon names them: node0, node1, ...
std::vector<std::string> default_hosts(std::uint64_t nodes);

/// Applying a mapping with Slurm (docs/placement.md, "Under Slurm"): srun --distribution=arbitrary
/// starts rank r on the r-th host of SLURM_HOSTFILE, and --cpu-bind=map_cpu:LIST binds the task of
/// local id i on every node (the node's ranks in rank order) to CPU LIST[i]; one list for all nodes.
struct SlurmPlacement {
  std::vector<std::string> rank_hosts;  ///< the host of each rank: the lines of SLURM_HOSTFILE
  /// The nodes used, each with the CPU (core within the node: socket x cores + core) of its ranks
  /// in local-id order.
  std::vector<std::pair<std::string, std::vector<std::uint64_t>>> node_cpus;
  /// The one map_cpu list that binds every node's ranks as the mapping says, or empty when the
  /// nodes' lists disagree (neither is a prefix of the other).
  std::vector<std::uint64_t> map_cpu;
};
/// Throws Error::Kind::usage when there are fewer hosts than the mapping uses nodes.
SlurmPlacement slurm_placement(const Mapping& mapping, const TreeTopology& topo, const std::vector<std::string>& hosts);
/// The same mapping renumbered within every node by the tree's symmetries (each level's subtrees in
/// the order the node's ranks first reach them): the same cost, and nodes whose ranks are laid out
/// alike get the same CPU list, so that one map_cpu list can serve. Unchanged with --exclude-leaves
/// (a renumbered leaf could be an excluded one).
Mapping renumber_within_nodes(const Mapping& mapping, const TreeTopology& topo);
/// SLURM_HOSTFILE's lines: each rank's host.
void write_slurm_hostfile(const SlurmPlacement& slurm, std::ostream& out);
/// How to launch under Slurm with the hostfile `hostfile` (written by write_slurm_hostfile): the
/// srun line with the one map_cpu list, or each node's list when they differ.
void write_slurm_launch(const SlurmPlacement& slurm, const std::string& hostfile, std::ostream& out);

}  // namespace mpimon
