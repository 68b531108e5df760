#pragma once
// What cluster.cpp (namespaces, launcher, node shape) and cluster_slurm.cpp (munge and Slurm on
// the same nodes) share.

#include <cstdint>
#include <filesystem>
#include <string>
#include <vector>

#include "mpimon/harness/cluster.hpp"

namespace mpimon::harness::cluster_detail {

inline constexpr const char* kSubnet = "198.18.0.0/15";  // RFC 2544's benchmarking range, never routed

inline std::string prefix_of(const std::string& name) { return "mpimon." + name + "."; }
inline std::string host_of(std::uint32_t node) { return "node" + std::to_string(node); }
inline std::string address_of(std::uint32_t node) { return "198.18.0." + std::to_string(node + 1); }

/// The file of `program` in PATH, "" when there is none.
std::string program_path(const std::string& program);

/// Runs a command of the set-up or the tear-down; throws with its output when it fails.
std::string run_checked(const std::vector<std::string>& argv);

/// Writes a whole file (rw-r--r-- unless `perms`), throwing when it cannot.
void write_text(const std::filesystem::path& path, const std::string& text,
                std::filesystem::perms perms = std::filesystem::perms::owner_read |
                                               std::filesystem::perms::owner_write |
                                               std::filesystem::perms::group_read |
                                               std::filesystem::perms::others_read);
inline constexpr auto kExecutable = std::filesystem::perms::owner_all | std::filesystem::perms::group_read |
                                    std::filesystem::perms::group_exec | std::filesystem::perms::others_read |
                                    std::filesystem::perms::others_exec;

/// A shell line (for a script that sets $host and $command) that runs $command in node $host: its
/// network namespace, its own hostname (vader names its segments after it) and its own /dev/shm (the
/// segments of different nodes never meet, and vanish with the node's last process).
std::string enter_node_command(const std::string& name);

/// Script lines exporting what every process launched on the cluster needs (Open MPI's interfaces
/// and session directories, the node shape, the idle yield, MPIMON_CLUSTER by which down finds them).
std::string cluster_environment(const std::string& name);

/// The node shape (cluster_shape.cpp). Sockets and cores per socket of "SxC" (--node-topology), a
/// usage error naming the option otherwise.
NodeShape parse_node_topology(const std::string& text);
/// The spec's node shape (its xml still to be set); sets spec.slots to its cores when --slots is
/// not given, and refuses a --slots of another core count.
NodeShape resolve_shape(ClusterSpec& spec);
/// DIR/node.xml: the user's (--node-xml), or hwloc's synthetic node of the shape (lstopo).
void write_node_xml(const ClusterSpec& spec, const NodeShape& shape, const std::filesystem::path& path);
/// "# mpimon cluster NAME: N nodes of SxC cores, hwloc XML" first (cluster_of_hostfile reads it),
/// then "nodeK slots=S" per node.
std::string hostfile_text(const ClusterState& s);

/// Slurm (cluster_slurm.cpp). The programs --slurm needs that PATH lacks, with their Debian
/// packages ("" when none).
std::string missing_slurm_programs();
/// Writes munge's key and Slurm's configuration under the cluster's directory, starts munged,
/// slurmctld (on node0) and one slurmd per node, waits until sinfo shows every node idle, and writes
/// DIR/slurm-command (any Slurm command on node0) and DIR/srun (the launcher). Throws when a step fails.
void start_slurm(const ClusterState& s);
/// The daemons of the cluster named by the pid files under its directory and still running them.
std::vector<int> cluster_daemons(const std::string& name);
/// DIR/slurm-command: runs a Slurm command on node0 with the cluster's configuration.
std::string slurm_command_script(const std::string& name);
inline std::string slurm_command_path(const std::string& name) { return cluster_directory(name) + "/slurm-command"; }
bool is_slurm_command(const std::string& program);

}  // namespace mpimon::harness::cluster_detail
