#include "mpimon/harness/cluster.hpp"

#include <signal.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <regex>
#include <sstream>
#include <thread>

#include "cluster_internal.hpp"
#include "mpimon/base/error.hpp"
#include "mpimon/base/units.hpp"
#include "mpimon/harness/launch.hpp"

namespace mpimon::harness {

namespace fs = std::filesystem;
using namespace cluster_detail;

std::string cluster_detail::program_path(const std::string& program) {
  const char* path = std::getenv("PATH");
  std::istringstream dirs(path ? path : "");
  for (std::string dir; std::getline(dirs, dir, ':');) {
    if (!dir.empty() && access((fs::path(dir) / program).c_str(), X_OK) == 0) return (fs::path(dir) / program).string();
  }
  return "";
}

std::string cluster_detail::run_checked(const std::vector<std::string>& argv) {
  LaunchResult r = run_process(argv, {}, std::chrono::seconds(60));
  if (r.exit_code != 0) {
    std::string line;
    for (const auto& w : argv) line += (line.empty() ? "" : " ") + w;
    raise_error(Error::Kind::system, line, "failed (exit code " + std::to_string(r.exit_code) + "): " + r.output);
  }
  return r.output;
}

void cluster_detail::write_text(const fs::path& path, const std::string& text, fs::perms perms) {
  std::ofstream out(path);
  out << text;
  if (!out.flush()) raise_error(Error::Kind::system, path.string(), "cannot write");
  fs::permissions(path, perms);
}

std::string cluster_detail::enter_node_command(const std::string& name) {
  return "ip netns exec \"" + prefix_of(name) +
         "$host\" unshare --uts --mount sh -c \"hostname \\$0 && mount -t tmpfs -o mode=1777 mpimon-shm /dev/shm && "
         "$command\" \"$host\"";
}

std::string cluster_detail::cluster_environment(const std::string& name) {
  const std::string dir = cluster_directory(name);
  return "export OMPI_MCA_mpi_yield_when_idle=${OMPI_MCA_mpi_yield_when_idle:-1}\n"
         "export OMPI_MCA_btl_tcp_if_include=" +
         std::string(kSubnet) + " OMPI_MCA_oob_tcp_if_include=" + kSubnet +
         "\n"
         "export MPIMON_CLUSTER=" +
         name + "  # mpimon cluster down finds the processes by it\n" + "export OMPI_MCA_orte_tmpdir_base=" + dir +
         "/tmp\n"
         "# Every node's hwloc shape (docs/cluster.md, \"Node shape\"): the cores rankfile slots name.\n"
         "export OMPI_MCA_hwloc_base_topo_file=${OMPI_MCA_hwloc_base_topo_file:-" +
         cluster_node_xml(name) + "}\n";
}

namespace {

constexpr int kCapNetAdmin = 12, kCapSysAdmin = 21;

std::string switch_namespace(const std::string& name) { return prefix_of(name) + "switch"; }

[[noreturn]] void usage(const std::string& option, const std::string& reason) {
  throw Error(Error::Kind::usage, option + " " + reason);
}

/// Bits per second of the cluster's --rate, 0 for "none".
std::uint64_t rate_bits(const std::string& rate) {
  if (rate == "none") return 0;
  try {
    return parse_rate(rate, "--rate");
  } catch (const Error& e) {
    throw Error(Error::Kind::usage, std::string(e.what()) + " (or none: links not shaped)");
  }
}

/// The namespaces named by `ip netns` (/run/netns) that belong to the cluster.
std::vector<std::string> cluster_namespaces(const std::string& name) {
  std::vector<std::string> found;
  std::error_code ec;
  for (const auto& e : fs::directory_iterator("/run/netns", ec)) {
    const std::string n = e.path().filename().string();
    if (n.rfind(prefix_of(name), 0) == 0) found.push_back(n);
  }
  return found;
}

std::vector<int> processes_in(const std::string& netns) {
  LaunchResult r = run_process({"ip", "netns", "pids", netns}, {}, std::chrono::seconds(30));
  std::vector<int> pids;
  std::istringstream in(r.output);
  for (int pid; in >> pid;) pids.push_back(pid);
  return pids;
}

/// Running, or stopped: a zombie has ended (its parent, or init, reaps it).
bool alive(int pid) {
  std::ifstream stat("/proc/" + std::to_string(pid) + "/stat");
  std::string line;
  if (!std::getline(stat, line)) return false;
  const auto end_of_name = line.rfind(')');
  return end_of_name != std::string::npos && line.size() > end_of_name + 2 && line[end_of_name + 2] != 'Z';
}

/// The processes the cluster's launcher started, wherever they are: they carry MPIMON_CLUSTER=NAME in
/// their environment (also those whose namespace is gone, e.g. deleted by hand).
std::vector<int> processes_marked(const std::string& name) {
  const std::string marker = "MPIMON_CLUSTER=" + name;
  std::vector<int> pids;
  std::error_code ec;
  for (const auto& e : fs::directory_iterator("/proc", ec)) {
    const std::string pid = e.path().filename().string();
    if (pid.find_first_not_of("0123456789") != std::string::npos) continue;
    std::ifstream in(e.path() / "environ");
    for (std::string variable; std::getline(in, variable, '\0');) {
      if (variable == marker) {
        pids.push_back(std::stoi(pid));
        break;
      }
    }
  }
  return pids;
}

std::string processes_text(std::size_t n) { return std::to_string(n) + (n == 1 ? " process" : " processes"); }

/// SIGTERM, then SIGKILL after 3 s to what is left; returns how many there were.
std::size_t stop_processes(const std::vector<int>& pids) {
  for (int pid : pids) kill(pid, SIGTERM);
  for (int round = 0; round < 60; ++round) {
    bool any = false;
    for (int pid : pids) any = any || alive(pid);
    if (!any) break;
    if (round == 30) {
      for (int pid : pids) kill(pid, SIGKILL);
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(100));
  }
  return pids.size();
}

/// The processors of this machine as an rps_cpus mask: comma-separated groups of 32 bits, as sysfs shows it.
std::string all_cpus_mask() {
  const unsigned cpus = std::max(1U, std::thread::hardware_concurrency());
  std::string mask;
  for (unsigned group = (cpus + 31) / 32; group-- > 0;) {
    const unsigned bits = std::min(32U, cpus - group * 32);
    char word[16];
    std::snprintf(word, sizeof word, "%x", bits == 32 ? 0xffffffffU : (1U << bits) - 1);
    mask += (mask.empty() ? "" : ",") + std::string(word);
  }
  return mask;
}

/// tbf on a link's sending side; the burst is 10 ms at the rate (at least 32 KiB: the kernel needs
/// one timer tick's worth).
void shape_link(const std::string& netns, const std::string& device, const std::string& rate) {
  const std::uint64_t bits = rate_bits(rate);
  if (bits == 0) return;
  const std::uint64_t burst = std::max<std::uint64_t>(bits / 8 / 100, 32768);
  run_checked({"tc", "-n", netns, "qdisc", "add", "dev", device, "root", "tbf", "rate", rate, "burst",
               std::to_string(burst), "latency", "50ms"});
}

/// Receive packet steering on a device: without it TCP between namespaces reorders and retransmits.
void steer_packets(const std::string& netns, const std::string& device) {
  run_checked(
      {"ip", "netns", "exec", netns, "sh", "-c",
       "for q in /sys/class/net/" + device + "/queues/rx-*; do echo " + all_cpus_mask() + " > $q/rps_cpus; done"});
}

std::string hosts_file(std::uint32_t nodes) {
  std::string text = "127.0.0.1 localhost\n";
  for (std::uint32_t n = 0; n < nodes; ++n) text += address_of(n) + " " + host_of(n) + "\n";
  return text;
}

std::string agent_script(const std::string& name) {
  return "#!/bin/sh\n"
         "# plm_rsh_agent of mpimon's emulated cluster '" +
         name +
         "' (docs/cluster.md): called by mpirun as AGENT HOST COMMAND...,\n"
         "# runs COMMAND (a line for a remote shell, as ssh would) in node HOST.\n"
         "host=$1\nshift\n"
         "case $host in node[0-9]*) ;; *) echo \"mpimon cluster agent: no node '$host' in cluster " +
         name + "\" >&2; exit 255 ;; esac\n" + "command=$*\nexec " + enter_node_command(name) + "\n";
}

std::string launcher_script(const std::string& name, const std::string& mpirun) {
  const std::string dir = cluster_directory(name);
  return "#!/bin/bash\n"
         "# mpirun of mpimon's emulated cluster '" +
         name +
         "' (docs/cluster.md): Open MPI's mpirun in node0 with the\n"
         "# cluster's hostfile and agent. Every node shares this machine's cores: a --bind-to becomes none\n"
         "# (rankfile slots still bind). Ranks yield when idle (they are usually oversubscribed).\n"
         "words=()\nbind=\n"
         "for w in \"$@\"; do\n"
         "  if [ -n \"$bind\" ]; then w=none; bind=; elif [ \"$w\" = --bind-to ]; then bind=1; fi\n"
         "  words+=(\"$w\")\n"
         "done\n" +
         cluster_environment(name) +
         "# Open MPI 5 (e.g. in the Debian 13 root of ci/ompi5.sh, where this path is its mpirun) launches\n"
         "# through PRRTE, which takes the agent as plm_ssh_agent and its settings as PRTE_MCA_.\n"
         "agent=(--mca plm_rsh_agent " +
         dir + "/agent)\n" + "if [ -x " + fs::path(mpirun).parent_path().string() + "/prterun ]; then\n" +
         "  agent=(--prtemca plm_ssh_agent " + dir + "/agent)\n" + "  export PRTE_MCA_prte_tmpdir_base=" + dir +
         "/tmp PRTE_MCA_oob_tcp_if_include=" + kSubnet +
         "\n"
         "  export PRTE_MCA_hwloc_base_use_topo_file=${PRTE_MCA_hwloc_base_use_topo_file:-" +
         cluster_node_xml(name) + "}\n" + "fi\n" + "host=node0\ncommand='exec \"$@\"'\nexec " +
         enter_node_command(name) + " " + mpirun + " --hostfile " + dir + "/hostfile \"${agent[@]}\" \"${words[@]}\"\n";
}

// ompi_info beside the launcher: mpimon records the monitoring components of the installation whose
// mpirun the launcher is (the ompi_info beside it, docs/record.md#launchers); without this one every
// run through the cluster recorded none.
std::string ompi_info_script(const std::string& name, const std::string& mpirun) {
  return "#!/bin/sh\n# ompi_info of the Open MPI that the mpirun of mpimon's emulated cluster '" + name +
         "' runs (docs/cluster.md).\nexec " + (fs::path(mpirun).parent_path() / "ompi_info").string() + " \"$@\"\n";
}

std::string state_text(const ClusterState& s) {
  return "name " + s.spec.name + "\nnodes " + std::to_string(s.spec.nodes) + "\nslots " + std::to_string(s.spec.slots) +
         "\nsockets " + std::to_string(s.shape.sockets) + "\ncores " + std::to_string(s.shape.cores) + "\nrate " +
         s.spec.rate + "\nslurm " + (s.spec.slurm ? "1" : "0") + "\nmpirun " + s.mpirun + "\n";
}

void build(const ClusterState& s) {
  const std::string& name = s.spec.name;
  const std::string sw = switch_namespace(name);
  run_checked({"ip", "netns", "add", sw});
  run_checked({"ip", "-n", sw, "link", "add", "br0", "type", "bridge"});
  run_checked({"ip", "-n", sw, "link", "set", "br0", "up"});
  for (std::uint32_t n = 0; n < s.spec.nodes; ++n) {
    const std::string ns = node_namespace(name, n), port = "port" + std::to_string(n);
    fs::create_directories("/etc/netns/" + ns);
    write_text("/etc/netns/" + ns + "/hosts", hosts_file(s.spec.nodes));
    run_checked({"ip", "netns", "add", ns});
    run_checked({"ip", "-n", sw, "link", "add", port, "type", "veth", "peer", "name", "eth0", "netns", ns});
    run_checked({"ip", "-n", sw, "link", "set", port, "master", "br0", "up"});
    run_checked({"ip", "-n", ns, "addr", "add", address_of(n) + "/16", "dev", "eth0"});
    run_checked({"ip", "-n", ns, "link", "set", "lo", "up"});
    run_checked({"ip", "-n", ns, "link", "set", "eth0", "up"});
    shape_link(ns, "eth0", s.spec.rate);
    shape_link(sw, port, s.spec.rate);
    steer_packets(ns, "eth0");
    steer_packets(sw, port);
  }
}

}  // namespace

std::string default_cluster_name() {
  const char* name = std::getenv("MPIMON_CLUSTER_NAME");
  return name && *name ? name : "default";
}

void check_cluster_name(const std::string& name) {
  static const std::regex form("[A-Za-z0-9_-]{1,32}");
  if (!std::regex_match(name, form)) {
    usage("--name", "takes 1 to 32 letters, digits, '_' or '-', not '" + name + "'");
  }
}

void check_cluster_spec(const ClusterSpec& spec) {
  check_cluster_name(spec.name);
  if (spec.nodes < 1 || spec.nodes > kMaxClusterNodes) {
    usage("--nodes", "takes 1 to " + std::to_string(kMaxClusterNodes) + " nodes, not " + std::to_string(spec.nodes));
  }
  rate_bits(spec.rate);
  if (!spec.node_topology.empty() && !spec.node_xml.empty())
    usage("--node-topology", "and --node-xml exclude each other");
  if (!spec.node_topology.empty()) parse_node_topology(spec.node_topology);
}

std::string missing_cluster_privileges() {
  std::ifstream in("/proc/self/status");
  std::uint64_t effective = 0;
  for (std::string line; std::getline(in, line);) {
    if (line.rfind("CapEff:", 0) == 0) effective = std::stoull(line.substr(7), nullptr, 16);
  }
  std::string missing;
  if ((effective >> kCapNetAdmin & 1U) == 0) missing = "CAP_NET_ADMIN";
  if ((effective >> kCapSysAdmin & 1U) == 0) missing += std::string(missing.empty() ? "" : " and ") + "CAP_SYS_ADMIN";
  return missing;
}

void require_cluster_privileges() {
  const std::string missing = missing_cluster_privileges();
  if (!missing.empty()) {
    throw Error(Error::Kind::system,
                "needs root (CAP_NET_ADMIN and CAP_SYS_ADMIN: it makes network and UTS namespaces); this process "
                "lacks " +
                    missing);
  }
  for (const std::string program : {"ip", "tc", "unshare"}) {
    if (program_path(program).empty()) {
      throw Error(Error::Kind::system,
                  program + " not found (install " + (program == "unshare" ? "util-linux" : "iproute2") + ")");
    }
  }
}

std::string cluster_directory(const std::string& name) {
  const char* base = std::getenv("MPIMON_CLUSTER_DIR");
  return std::string(base && *base ? base : "/run/mpimon/cluster") + "/" + name;
}
std::string cluster_launcher(const std::string& name) { return cluster_directory(name) + "/mpirun"; }
std::string cluster_srun(const std::string& name) { return cluster_directory(name) + "/srun"; }
std::string cluster_hostfile(const std::string& name) { return cluster_directory(name) + "/hostfile"; }
std::string cluster_node_xml(const std::string& name) { return cluster_directory(name) + "/node.xml"; }
std::string node_namespace(const std::string& name, std::uint32_t node) { return prefix_of(name) + host_of(node); }

bool ClusterState::complete() const {
  bool all = switch_present;
  for (const auto& n : nodes) all = all && n.present;
  return all;
}

ClusterState cluster_up(const ClusterSpec& requested) {
  check_cluster_spec(requested);
  ClusterState s;
  s.spec = requested;
  s.shape = resolve_shape(s.spec);
  require_cluster_privileges();
  if (requested.slurm) {
    if (const std::string missing = missing_slurm_programs(); !missing.empty()) {
      raise_error(Error::Kind::input, "--slurm",
                  "needs " + missing + ": install them (ci/install-deps.sh does: slurmctld slurmd slurm-client munge)");
    }
  }
  s.shape.xml = cluster_node_xml(s.spec.name);
  s.mpirun = program_path("mpirun");
  if (s.mpirun.empty()) raise_error(Error::Kind::input, "mpirun", "not found: install Open MPI (openmpi-bin)");
  const std::string& name = s.spec.name;
  const fs::path dir = cluster_directory(name);
  if (dir.string().find_first_of(" \t\n'\"") != std::string::npos) {
    raise_error(Error::Kind::usage, dir.string(), "the cluster's directory may hold no blank or quote");
  }
  if (fs::exists(dir) || !cluster_namespaces(name).empty()) {
    raise_error(Error::Kind::usage, "--name " + name,
                "a cluster of that name is up, or was left by an interrupted run: mpimon cluster down --name " + name +
                    " first");
  }
  try {
    fs::create_directories(dir / "tmp");
    write_text(dir / "state", state_text(s));  // first: down finds the cluster even if up stops here
    write_node_xml(s.spec, s.shape, s.shape.xml);
    build(s);
    write_text(dir / "hostfile", hostfile_text(s));
    write_text(dir / "agent", agent_script(name), kExecutable);
    write_text(dir / "mpirun", launcher_script(name, s.mpirun), kExecutable);
    write_text(dir / "ompi_info", ompi_info_script(name, s.mpirun), kExecutable);
    if (s.spec.slurm) start_slurm(s);
  } catch (...) {
    cluster_down(name);
    throw;
  }
  return cluster_status(name);
}

ClusterState cluster_status(const std::string& name) {
  check_cluster_name(name);
  std::ifstream in(fs::path(cluster_directory(name)) / "state");
  if (!in) {
    const auto left = cluster_namespaces(name);
    raise_error(Error::Kind::input, "--name " + name,
                left.empty() ? "no cluster of that name is up (mpimon cluster up --nodes N --name " + name + ")"
                             : "no cluster of that name is up, but " + std::to_string(left.size()) +
                                   " of its namespaces are left: mpimon cluster down --name " + name);
  }
  ClusterState s;
  for (std::string key, value; in >> key >> value;) {
    const auto number = [&] { return static_cast<std::uint32_t>(std::stoul(value)); };
    if (key == "name") s.spec.name = value;
    if (key == "nodes") s.spec.nodes = number();
    if (key == "slots") s.spec.slots = number();
    if (key == "sockets") s.shape.sockets = number();
    if (key == "cores") s.shape.cores = number();
    if (key == "rate") s.spec.rate = value;
    if (key == "slurm") s.spec.slurm = value == "1";
    if (key == "mpirun") s.mpirun = value;
  }
  s.shape.xml = cluster_node_xml(name);
  s.switch_present = fs::exists("/run/netns/" + switch_namespace(name));
  for (std::uint32_t n = 0; n < s.spec.nodes; ++n) {
    ClusterNode node{host_of(n), node_namespace(name, n), address_of(n), false, {}};
    node.present = fs::exists("/run/netns/" + node.netns);
    if (node.present) node.processes = processes_in(node.netns);
    s.nodes.push_back(node);
  }
  return s;
}

std::vector<std::string> cluster_down(const std::string& name) {
  check_cluster_name(name);
  require_cluster_privileges();
  std::vector<std::string> removed;
  const auto namespaces = cluster_namespaces(name);
  for (const auto& ns : namespaces) {
    if (const std::size_t n = stop_processes(processes_in(ns))) {
      removed.push_back(processes_text(n) + " in " + ns);
    }
  }
  // munged runs in this machine's namespace: found by its pid file as well as by its marker.
  auto outside = processes_marked(name);
  for (int pid : cluster_daemons(name)) {
    if (std::find(outside.begin(), outside.end(), pid) == outside.end()) outside.push_back(pid);
  }
  if (const std::size_t n = stop_processes(outside)) {
    removed.push_back(processes_text(n) + " of the cluster outside its namespaces");
  }
  // Deleting a namespace deletes its links, their veth peers and their qdiscs.
  for (const auto& ns : namespaces) {
    run_checked({"ip", "netns", "del", ns});
    removed.push_back("namespace " + ns + " (its links and qdiscs)");
  }
  std::error_code ec;
  for (const auto& e : fs::directory_iterator("/etc/netns", ec)) {
    if (e.path().filename().string().rfind(prefix_of(name), 0) == 0) {
      fs::remove_all(e.path());
      removed.push_back(e.path().string());
    }
  }
  const fs::path dir = cluster_directory(name);
  if (fs::exists(dir)) {
    const bool slurm = fs::exists(dir / "slurm");
    fs::remove_all(dir);
    removed.push_back(dir.string() + " (hostfile, launcher, agent, node shape, Open MPI's session directories" +
                      (slurm ? ", Slurm's and munge's configuration, state, logs and sockets)" : ")"));
  }
  // The parents up made (/run/mpimon/cluster, /run/mpimon), once no cluster is left in them.
  for (fs::path parent = dir.parent_path(); parent.filename() == "cluster" || parent.filename() == "mpimon";
       parent = parent.parent_path()) {
    if (!fs::is_directory(parent, ec) || !fs::is_empty(parent, ec) || !fs::remove(parent, ec)) break;
  }
  return removed;
}

void cluster_exec(const std::string& name, const std::vector<std::string>& command) {
  const bool open_mpi = !command.empty() && is_open_mpi_launcher(command[0]);
  const bool slurm = !command.empty() && is_slurm_command(fs::path(command[0]).filename().string());
  if (!open_mpi && !slurm) {
    throw Error(Error::Kind::usage,
                "give an Open MPI or a Slurm command line after --: mpimon cluster run -- mpirun ARGS... (or srun, "
                "salloc, sbatch, sinfo ... on a cluster made with --slurm), not '" +
                    (command.empty() ? std::string() : command[0]) + "'");
  }
  const ClusterState s = cluster_status(name);
  if (!s.complete()) {
    raise_error(Error::Kind::input, "--name " + name, "the cluster is damaged (see mpimon cluster status)");
  }
  if (slurm && !s.spec.slurm) {
    raise_error(Error::Kind::usage, "--name " + name,
                "runs no Slurm (" + command[0] + "): make it with mpimon cluster up --slurm");
  }
  require_cluster_privileges();
  // mpirun: the cluster's launcher with the rest; a Slurm command: DIR/slurm-command with all of it.
  const std::string program = open_mpi ? cluster_launcher(name) : slurm_command_path(name);
  std::vector<char*> argv{const_cast<char*>(program.c_str())};
  for (auto it = command.begin() + (open_mpi ? 1 : 0); it != command.end(); ++it)
    argv.push_back(const_cast<char*>(it->c_str()));
  argv.push_back(nullptr);
  for (const auto& [k, v] : open_mpi_environment()) setenv(k.c_str(), v.c_str(), 1);
  execv(program.c_str(), argv.data());
  raise_error(Error::Kind::system, program, std::string("cannot run: ") + std::strerror(errno));
}

}  // namespace mpimon::harness
