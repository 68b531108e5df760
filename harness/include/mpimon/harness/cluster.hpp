#pragma once
// An emulated cluster on this machine (docs/cluster.md): one Linux network namespace per node,
// each with its own hostname (node0, node1, ...), a veth into a bridge in a "switch" namespace,
// addresses from the benchmarking range 198.18.0.0/15 and a tbf qdisc shaping every link. Open
// MPI's mpirun runs in node0 and starts its daemons on the other nodes through an agent script
// (plm_rsh_agent) that enters the node's namespaces; the cluster's launcher wraps that mpirun so
// that every mpimon command taking --launcher uses it as it is.

#include <cstdint>
#include <string>
#include <vector>

namespace mpimon::harness {

struct ClusterSpec {
  std::string name = "default";  ///< letters, digits, '_' and '-'
  std::uint32_t nodes = 0;       ///< 1 to kMaxClusterNodes
  std::uint32_t slots = 0;       ///< per node in the hostfile; 0: this machine's processors
  std::string rate = "1gbit";    ///< tbf rate of every link (tc's units: bit, kbit, mbit, gbit), or none
};

inline constexpr std::uint32_t kMaxClusterNodes = 200;

/// A usage error naming the option (--name, --nodes, --slots, --rate) for a value it does not take.
void check_cluster_spec(const ClusterSpec& spec);
void check_cluster_name(const std::string& name);

/// "" when this process may make namespaces, else what it lacks ("CAP_NET_ADMIN, CAP_SYS_ADMIN").
std::string missing_cluster_privileges();
/// Throws a system error naming the missing capabilities or the missing program (ip, tc, unshare).
void require_cluster_privileges();

/// Where a cluster's files are: /run/mpimon/cluster/NAME (MPIMON_CLUSTER_DIR overrides /run/mpimon/cluster).
std::string cluster_directory(const std::string& name);
std::string cluster_launcher(const std::string& name);  ///< DIR/mpirun
std::string cluster_hostfile(const std::string& name);  ///< DIR/hostfile

/// The namespaces of a cluster as `ip netns` names them: mpimon.NAME.node0 ..., mpimon.NAME.switch.
std::string node_namespace(const std::string& name, std::uint32_t node);

struct ClusterNode {
  std::string host, netns, address;
  bool present = false;        ///< its namespace exists
  std::vector<int> processes;  ///< processes running in it
};

struct ClusterState {
  ClusterSpec spec;
  std::string mpirun;  ///< the Open MPI mpirun the launcher runs in node0
  std::vector<ClusterNode> nodes;
  bool switch_present = false;
  [[nodiscard]] bool complete() const;
};

/// Builds the cluster; on any failure removes what it had made and throws. Throws a usage error
/// when a cluster of that name (or what an interrupted one left) exists.
ClusterState cluster_up(const ClusterSpec& spec);

/// The cluster's state as written by up, with what exists now; throws an input error when there is
/// no cluster of that name.
ClusterState cluster_status(const std::string& name);

/// What down removed: each item a line ("namespace mpimon.a.node0", "3 processes in ..."); empty
/// when it found nothing of that cluster.
std::vector<std::string> cluster_down(const std::string& name);

/// Checks that a cluster of that name is up and its first argument is Open MPI's launcher
/// (mpirun, mpiexec), then replaces this process by the cluster's launcher with the rest.
[[noreturn]] void cluster_exec(const std::string& name, const std::vector<std::string>& mpirun_command);

}  // namespace mpimon::harness
