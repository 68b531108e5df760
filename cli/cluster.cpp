// `mpimon cluster`: an emulated cluster of network namespaces on this machine (docs/cluster.md).
// The namespaces, the shaping and the launching are the harness's (harness/cluster.hpp).

#include <algorithm>
#include <cstdio>

#include "cli_support.hpp"
#include "commands.hpp"
#include "mpimon/harness/cluster.hpp"

namespace mpimon::cli {

using namespace mpimon::harness;

namespace {

constexpr const char* kSummary =
    "An emulated cluster on this machine (docs/cluster.md): one network namespace per node (hostnames\n"
    "node0, node1, ...) linked through a bridge, addresses in 198.18.0.0/15, every link shaped by tbf.\n"
    "Needs root (CAP_NET_ADMIN and CAP_SYS_ADMIN).";

/// Parses a sub-command that takes only --name; returns false after --help.
bool parse_named(const Command& cmd, const std::vector<std::string>& args, std::string& name) {
  po::options_description options("Options");
  options.add_options()("name", po::value(&name)->default_value("default"), "the cluster's name");
  po::variables_map vm;
  if (!parse_options(cmd, args, options, {}, vm)) return false;
  check_cluster_name(name);
  return true;
}

void print_status(const ClusterState& s) {
  std::printf("cluster %s: %u nodes, %u slots each, links %s; %s\n", s.spec.name.c_str(), s.spec.nodes, s.spec.slots,
              s.spec.rate == "none" ? "not shaped" : ("shaped to " + s.spec.rate).c_str(),
              s.complete() ? "up" : "DAMAGED (mpimon cluster down, then up)");
  std::printf("launcher %s\nhostfile %s\nmpirun   %s\n", cluster_launcher(s.spec.name).c_str(),
              cluster_hostfile(s.spec.name).c_str(), s.mpirun.c_str());
  for (const auto& n : s.nodes) {
    std::printf(
        "  %-7s %-13s %-26s %s\n", n.host.c_str(), n.address.c_str(), n.netns.c_str(),
        !n.present ? "namespace missing"
                   : (std::to_string(n.processes.size()) + " process" + (n.processes.size() == 1 ? "" : "es")).c_str());
  }
}

}  // namespace

int cluster_up_command(const std::string& name, const std::vector<std::string>& args) {
  Command cmd{name, "--nodes N [--slots S] [--rate RATE] [--name NAME]",
              std::string(kSummary) + "\nBuilds the cluster and prints the launcher to give mpimon's --launcher."};
  return run_command(cmd, [&] {
    ClusterSpec spec;
    po::options_description options("Options");
    options.add_options()("nodes", po::value(&spec.nodes)->required(), "number of nodes (namespaces)")(
        "slots", po::value(&spec.slots), "slots per node in the hostfile (default: this machine's processors)")(
        "rate", po::value(&spec.rate)->default_value("1gbit"),
        "tbf rate of every link, in tc's units (100mbit, 1gbit), or none")(
        "name", po::value(&spec.name)->default_value("default"), "the cluster's name");
    po::variables_map vm;
    if (!parse_options(cmd, args, options, {}, vm)) return kExitOk;
    if (vm.count("slots") && spec.slots == 0) throw po::error("--slots takes a number of slots > 0");
    const ClusterState s = cluster_up(spec);
    std::fprintf(stderr, "%s: %u nodes up; give mpimon commands --launcher %s\n", name.c_str(), s.spec.nodes,
                 cluster_launcher(spec.name).c_str());
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

namespace {

/// `launcher` and `hostfile`: the path of one of the cluster's files, checked to exist.
int print_path(const std::string& name, const std::vector<std::string>& args, bool launcher) {
  Command cmd{name, "[--name NAME]",
              launcher ? "Prints the cluster's launcher, for --launcher (e.g. mpimon record --launcher \"$(mpimon "
                         "cluster launcher)\")."
                       : "Prints the path of the cluster's hostfile, for mpimon place --hostfile."};
  return run_command(cmd, [&] {
    std::string cluster;
    if (!parse_named(cmd, args, cluster)) return kExitOk;
    cluster_status(cluster);  // an error when there is no such cluster
    std::printf("%s\n", (launcher ? cluster_launcher(cluster) : cluster_hostfile(cluster)).c_str());
    return kExitOk;
  });
}

}  // namespace

int cluster_launcher_command(const std::string& name, const std::vector<std::string>& args) {
  return print_path(name, args, true);
}
int cluster_hostfile_command(const std::string& name, const std::vector<std::string>& args) {
  return print_path(name, args, false);
}

int cluster_run_command(const std::string& name, const std::vector<std::string>& all_args) {
  Command cmd{name, "[--name NAME] -- mpirun ARGS...",
              "Runs an Open MPI command line on the cluster (mpirun in node0, with the cluster's hostfile)."};
  auto dashes = std::find(all_args.begin(), all_args.end(), "--");
  return run_command(cmd, [&] {
    std::string cluster;
    if (!parse_named(cmd, {all_args.begin(), dashes}, cluster)) return kExitOk;
    if (dashes == all_args.end()) throw po::error("give the command after --: -- mpirun ARGS...");
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
