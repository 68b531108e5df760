// `mpimon cluster`: an emulated cluster of network namespaces on this machine (docs/cluster.md).
// The namespaces, the shaping and the launching are the harness's (harness/cluster.hpp).

#include <algorithm>
#include <cstdio>

#include "cli_support.hpp"
#include "commands.hpp"
#include "mpimon/base/error.hpp"
#include "mpimon/harness/cluster.hpp"

namespace mpimon::cli {

using namespace mpimon::harness;

namespace {

constexpr const char* kSummary =
    "An emulated cluster on this machine (docs/cluster.md): one network namespace per node (hostnames\n"
    "node0, node1, ...) linked through a bridge, addresses in 198.18.0.0/15, every link shaped by tbf;\n"
    "every node has an hwloc shape of its own; with --slurm, Slurm runs on it. Needs root (CAP_NET_ADMIN and\n"
    "CAP_SYS_ADMIN). NAME defaults to $MPIMON_CLUSTER_NAME, else 'default'.";

po::typed_value<std::string>* name_option(std::string& name) {
  return po::value(&name)->default_value(default_cluster_name());
}

/// Parses a sub-command that takes only --name; returns false after --help.
bool parse_named(const Command& cmd, const std::vector<std::string>& args, std::string& name) {
  po::options_description options("Options");
  options.add_options()("name", name_option(name), "the cluster's name");
  po::variables_map vm;
  if (!parse_options(cmd, args, options, {}, vm)) return false;
  check_cluster_name(name);
  return true;
}

void print_status(const ClusterState& s) {
  std::printf("cluster %s: %u nodes, %u slots each, links %s%s; %s\n", s.spec.name.c_str(), s.spec.nodes, s.spec.slots,
              s.spec.rate == "none" ? "not shaped" : ("shaped to " + s.spec.rate).c_str(),
              s.spec.slurm ? ", Slurm" : "", s.complete() ? "up" : "DAMAGED (mpimon cluster down, then up)");
  std::printf("node     %s (hwloc %s)\n", s.shape.text().c_str(), s.shape.xml.c_str());
  std::printf("launcher %s\n", cluster_launcher(s.spec.name).c_str());
  if (s.spec.slurm) {
    std::printf("srun     %s\nslurm    %s\n", cluster_srun(s.spec.name).c_str(),
                s.complete() ? slurm_node_states(s.spec.name).c_str() : "(the cluster is damaged)");
  }
  std::printf("hostfile %s\nmpirun   %s\n", cluster_hostfile(s.spec.name).c_str(), s.mpirun.c_str());
  for (const auto& n : s.nodes) {
    std::printf(
        "  %-7s %-13s %-26s %s\n", n.host.c_str(), n.address.c_str(), n.netns.c_str(),
        !n.present ? "namespace missing"
                   : (std::to_string(n.processes.size()) + " process" + (n.processes.size() == 1 ? "" : "es")).c_str());
  }
}

}  // namespace

int cluster_up_command(const std::string& name, const std::vector<std::string>& args) {
  Command cmd{name,
              "--nodes N [--slots S | --node-topology SxC | --node-xml FILE] [--rate RATE] [--slurm] [--name NAME]",
              std::string(kSummary) + "\nBuilds the cluster and prints the launcher to give mpimon's --launcher."};
  return run_command(cmd, [&] {
    ClusterSpec spec;
    po::options_description options("Options");
    options.add_options()("nodes", po::value(&spec.nodes)->required(), "number of nodes (namespaces)")(
        "slots", po::value(&spec.slots),
        "slots per node, each node a socket of as many cores (default: the node shape's cores, else this machine's "
        "processors)")("node-topology", po::value(&spec.node_topology),
                       "every node's hwloc shape: SOCKETSxCORES (cores per socket), e.g. 2x4")(
        "node-xml", po::value(&spec.node_xml), "every node's hwloc shape from an hwloc XML file of one node")(
        "rate", po::value(&spec.rate)->default_value("1gbit"),
        "tbf rate of every link, in tc's units (100mbit, 1gbit), or none")(
        "slurm", po::bool_switch(&spec.slurm),
        "also run Slurm: munge, slurmctld on node0, a slurmd per node (packages slurmctld slurmd slurm-client munge)")(
        "name", name_option(spec.name), "the cluster's name");
    po::variables_map vm;
    if (!parse_options(cmd, args, options, {}, vm)) return kExitOk;
    if (vm.count("slots") && spec.slots == 0) throw po::error("--slots takes a number of slots > 0");
    const ClusterState s = cluster_up(spec);
    std::fprintf(stderr, "%s: %u nodes of %s up%s; give mpimon commands --launcher %s%s\n", name.c_str(), s.spec.nodes,
                 s.shape.text().c_str(), s.spec.slurm ? " with Slurm (sinfo: all idle)" : "",
                 cluster_launcher(spec.name).c_str(),
                 s.spec.slurm ? (" or --launcher " + cluster_srun(spec.name)).c_str() : "");
    std::printf("%s\n", cluster_launcher(spec.name).c_str());
    return kExitOk;
  });
}

int cluster_status_command(const std::string& name, const std::vector<std::string>& args) {
  Command cmd{name, "[--name NAME]", std::string(kSummary) + "\nPrints the cluster's nodes and what runs on them."};
  return run_command(cmd, [&] {
    std::string cluster;
    if (!parse_named(cmd, args, cluster)) return kExitOk;
    const ClusterState s = cluster_status(cluster);
    print_status(s);
    return s.complete() ? kExitOk : kExitFailure;
  });
}

namespace {}  // namespace

int cluster_launcher_command(const std::string& name, const std::vector<std::string>& args) {
  Command cmd{name, "[--srun] [--name NAME]",
              "Prints the cluster's launcher, for --launcher (e.g. mpimon record --launcher \"$(mpimon cluster "
              "launcher)\"): its mpirun, or with --srun its srun (a cluster made with --slurm)."};
  return run_command(cmd, [&] {
    std::string cluster;
    bool srun = false;
    po::options_description options("Options");
    options.add_options()("srun", po::bool_switch(&srun), "Slurm's srun on node0 instead of mpirun")(
        "name", name_option(cluster), "the cluster's name");
    po::variables_map vm;
    if (!parse_options(cmd, args, options, {}, vm)) return kExitOk;
    const ClusterState s = cluster_status(cluster);  // an error when there is no such cluster
    if (srun && !s.spec.slurm) {
      throw Error(Error::Kind::usage,
                  "--srun: cluster " + cluster + " runs no Slurm (mpimon cluster up --slurm makes one that does)");
    }
    std::printf("%s\n", (srun ? cluster_srun(cluster) : cluster_launcher(cluster)).c_str());
    return kExitOk;
  });
}

int cluster_hostfile_command(const std::string& name, const std::vector<std::string>& args) {
  Command cmd{name, "[--name NAME]",
              "Prints the path of the cluster's hostfile, for mpimon place --hostfile (which takes the node shape "
              "from it)."};
  return run_command(cmd, [&] {
    std::string cluster;
    if (!parse_named(cmd, args, cluster)) return kExitOk;
    cluster_status(cluster);  // an error when there is no such cluster
    std::printf("%s\n", cluster_hostfile(cluster).c_str());
    return kExitOk;
  });
}

int cluster_run_command(const std::string& name, const std::vector<std::string>& all_args) {
  Command cmd{name, "[--name NAME] -- mpirun ARGS... | srun ARGS... | salloc ARGS... | sinfo ...",
              "Runs an Open MPI command line on the cluster (mpirun in node0, with the cluster's hostfile), or a\n"
              "Slurm command on node0 with the cluster's Slurm (a cluster made with --slurm)."};
  auto dashes = std::find(all_args.begin(), all_args.end(), "--");
  return run_command(cmd, [&] {
    std::string cluster;
    if (!parse_named(cmd, {all_args.begin(), dashes}, cluster)) return kExitOk;
    if (dashes == all_args.end()) throw po::error("give the command after --: -- mpirun ARGS... (or -- srun ARGS...)");
    cluster_exec(cluster, {dashes + 1, all_args.end()});
  });
}

int cluster_down_command(const std::string& name, const std::vector<std::string>& args) {
  Command cmd{name, "[--name NAME]",
              "Removes every namespace, link, qdisc, file and process of the cluster, also after an interrupted run."};
  return run_command(cmd, [&] {
    std::string cluster;
    if (!parse_named(cmd, args, cluster)) return kExitOk;
    const auto removed = cluster_down(cluster);
    if (removed.empty()) {
      std::printf("nothing to remove: no cluster named %s is up and none left anything\n", cluster.c_str());
    }
    for (const auto& item : removed) std::printf("removed %s\n", item.c_str());
    return kExitOk;
  });
}

}  // namespace mpimon::cli
