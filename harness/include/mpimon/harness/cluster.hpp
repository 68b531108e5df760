#pragma once
// An emulated cluster on this machine (docs/cluster.md): one Linux network namespace per node,
// each with its own hostname (node0, node1, ...), a veth into a bridge in a "switch" namespace,
// addresses from the benchmarking range 198.18.0.0/15 and a tbf qdisc shaping every link. Open
// MPI's mpirun runs in node0 and starts its daemons on the other nodes through an agent script
// (plm_rsh_agent) that enters the node's namespaces; the cluster's launcher wraps that mpirun so
// that every mpimon command taking --launcher uses it as it is. Every node has an hwloc shape of
// its own (a node XML the launcher gives Open MPI), so that rankfiles name cores this machine may
// lack. With Slurm (cluster_slurm.cpp), munge, slurmctld and one slurmd per node run on the same
// namespaces, and an srun wrapper is the launcher.

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace mpimon::harness {

struct ClusterSpec {
  std::string name = "default";  ///< letters, digits, '_' and '-'
  std::uint32_t nodes = 0;       ///< 1 to kMaxClusterNodes
  std::uint32_t slots = 0;       ///< per node in the hostfile; 0: the node shape's cores
  std::string rate = "1gbit";    ///< tbf rate of every link (tc's units: bit, kbit, mbit, gbit), or none
  /// The hwloc shape of every node: "SxC" (sockets x cores per socket, --node-topology), or an hwloc
  /// XML file of one node (--node-xml); neither: 1 socket of `slots` cores (this machine's
  /// processors when `slots` is 0 too).
  std::string node_topology;
  std::string node_xml;
  bool slurm = false;  ///< also munge, slurmctld and one slurmd per node (--slurm)
};

inline constexpr std::uint32_t kMaxClusterNodes = 200;

/// The name `--name` defaults to: $MPIMON_CLUSTER_NAME, else "default".
std::string default_cluster_name();

/// A usage error naming the option (--name, --nodes, --slots, --rate, --node-topology, --node-xml)
/// for a value it does not take, or two that contradict each other.
void check_cluster_spec(const ClusterSpec& spec);
void check_cluster_name(const std::string& name);

/// "" when this process may make namespaces, else what it lacks ("CAP_NET_ADMIN, CAP_SYS_ADMIN").
std::string missing_cluster_privileges();
/// Throws a system error naming the missing capabilities or the missing program (ip, tc, unshare).
void require_cluster_privileges();

/// Where a cluster's files are: /run/mpimon/cluster/NAME (MPIMON_CLUSTER_DIR overrides /run/mpimon/cluster).
std::string cluster_directory(const std::string& name);
std::string cluster_launcher(const std::string& name);  ///< DIR/mpirun
std::string cluster_srun(const std::string& name);      ///< DIR/srun (a cluster made with --slurm)
std::string cluster_hostfile(const std::string& name);  ///< DIR/hostfile
std::string cluster_node_xml(const std::string& name);  ///< DIR/node.xml, every node's hwloc shape

/// The namespaces of a cluster as `ip netns` names them: mpimon.NAME.node0 ..., mpimon.NAME.switch.
std::string node_namespace(const std::string& name, std::uint32_t node);

/// Every node's hwloc shape: `sockets` x `cores` (per socket); `xml` the node XML the launcher
/// gives Open MPI (hwloc_base_topo_file).
struct NodeShape {
  std::uint32_t sockets = 0, cores = 0;
  std::string xml;
  [[nodiscard]] std::uint32_t total_cores() const { return sockets * cores; }
  /// "1 socket x 4 cores", "2 sockets x 4 cores"
  [[nodiscard]] std::string text() const;
};

/// What the hostfile of a cluster made by `mpimon cluster up` says of it in its first line (a
/// comment Open MPI skips); nullopt for any other hostfile. `mpimon place --hostfile` takes the
/// topology and the links' rate from it.
struct HostfileCluster {
  std::string name;
  std::uint32_t nodes = 0;
  NodeShape shape;
  std::string rate;  ///< its links' --rate (place's time model reads it), "" in hostfiles that predate it
};
std::optional<HostfileCluster> cluster_of_hostfile(const std::string& path);

struct ClusterNode {
  std::string host, netns, address;
  bool present = false;        ///< its namespace exists
  std::vector<int> processes;  ///< processes running in it
};

struct ClusterState {
  ClusterSpec spec;
  NodeShape shape;
  std::string mpirun;  ///< the Open MPI mpirun the launcher runs in node0
  std::vector<ClusterNode> nodes;
  bool switch_present = false;
  [[nodiscard]] bool complete() const;
};

/// What `sinfo` says of each node of a cluster made with --slurm ("node0 idle, node1 idle"), or why
/// it cannot say.
std::string slurm_node_states(const std::string& name);

/// Builds the cluster (and with spec.slurm, starts Slurm and waits until every node is idle); on
/// any failure removes what it had made and throws. Throws a usage error when a cluster of that
/// name (or what an interrupted one left) exists.
ClusterState cluster_up(const ClusterSpec& spec);

/// The cluster's state as written by up, with what exists now; throws an input error when there is
/// no cluster of that name.
ClusterState cluster_status(const std::string& name);

/// What down removed: each item a line ("namespace mpimon.a.node0", "3 processes in ..."); empty
/// when it found nothing of that cluster.
std::vector<std::string> cluster_down(const std::string& name);

/// Checks that a cluster of that name is up and what `command` starts with: Open MPI's launcher
/// (mpirun, mpiexec), replaced by the cluster's; or a Slurm command (srun, salloc, sbatch, sinfo,
/// ...) on a cluster made with --slurm, run on node0 with the cluster's Slurm configuration. Then
/// replaces this process by it.
[[noreturn]] void cluster_exec(const std::string& name, const std::vector<std::string>& command);

}  // namespace mpimon::harness
