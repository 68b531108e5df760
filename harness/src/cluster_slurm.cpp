// Slurm on the emulated cluster (docs/cluster.md, "Slurm"): munge in this machine's namespace,
// slurmctld on node0 and one slurmd per node, each in its node's namespaces, every file of theirs
// (configuration, state, spool, logs, pid files, sockets) under the cluster's directory, so that
// clusters of different names run their own daemons side by side (each node's ports are its own).

#include <unistd.h>

#include <array>
#include <chrono>
#include <filesystem>
#include <fstream>
#include <random>
#include <sstream>
#include <thread>

#include "cluster_internal.hpp"
#include "mpimon/base/error.hpp"
#include "mpimon/harness/launch.hpp"

namespace mpimon::harness {

std::string slurm_node_states(const std::string& name) {
  LaunchResult r = run_process({cluster_detail::slurm_command_path(name), "sinfo", "-h", "-N", "-o", "%N %T"}, {},
                               std::chrono::seconds(30));
  if (r.exit_code != 0) return "sinfo failed (exit code " + std::to_string(r.exit_code) + "): " + r.output;
  std::istringstream in(r.output);
  std::string text;
  for (std::string node, state; in >> node >> state;) text += (text.empty() ? "" : ", ") + node + " " + state;
  return text;
}

}  // namespace mpimon::harness

namespace mpimon::harness::cluster_detail {

namespace fs = std::filesystem;

namespace {

constexpr std::chrono::seconds kIdleTimeout{90};

fs::path slurm_directory(const std::string& name) { return fs::path(cluster_directory(name)) / "slurm"; }
fs::path munge_directory(const std::string& name) { return fs::path(cluster_directory(name)) / "munge"; }
std::string slurm_conf(const std::string& name) { return (slurm_directory(name) / "slurm.conf").string(); }

std::string lowercase(std::string text) {
  for (auto& c : text) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return text;
}

std::string slurm_conf_text(const ClusterState& s) {
  const std::string& name = s.spec.name;
  const std::string slurm = slurm_directory(name).string(), munge = munge_directory(name).string();
  std::string text =
      "# Slurm of mpimon's emulated cluster '" + name +
      "' (docs/cluster.md), written by mpimon cluster up --slurm.\n"
      "ClusterName=mpimon-" +
      lowercase(name) + "\nSlurmctldHost=node0(" + address_of(0) +
      ")\n"
      "SlurmUser=root\nSlurmdUser=root\n"
      "AuthType=auth/munge\nCredType=cred/munge\nAuthInfo=socket=" +
      munge + "/socket\n" + "StateSaveLocation=" + slurm + "/state\nSlurmdSpoolDir=" + slurm +
      "/spool/%n\n"
      "# PMIx's directories per node (by default /tmp, where nodes and clusters would collide).\n"
      "TmpFS=" +
      slurm + "/tmp/%n\nSlurmctldPidFile=" + slurm + "/slurmctld.pid\nSlurmdPidFile=" + slurm +
      "/slurmd.%n.pid\nSlurmctldLogFile=" + slurm + "/log/slurmctld.log\nSlurmdLogFile=" + slurm +
      "/log/slurmd.%n.log\n"
      "# The nodes share this machine's cores and see a sysfs without cgroups (ip netns exec): no binding\n"
      "# (--cpu-bind is recorded in SLURM_CPU_BIND_* but not applied), processes tracked by their parents.\n"
      "ProctrackType=proctrack/linuxproc\nTaskPlugin=task/none\nJobAcctGatherType=jobacct_gather/none\n"
      "AccountingStorageType=accounting_storage/none\nSelectType=select/cons_tres\nSelectTypeParameters=CR_Core\n"
      "# The nodes' CPUs are the cluster's slots, not this machine's.\nSlurmdParameters=config_overrides\n"
      "MpiDefault=pmix\nReturnToService=2\nMailProg=/bin/true\nKillWait=5\n";
  const std::string cpus = "Sockets=" + std::to_string(s.shape.sockets) +
                           " CoresPerSocket=" + std::to_string(s.shape.cores) +
                           " ThreadsPerCore=1 CPUs=" + std::to_string(s.shape.total_cores());
  for (std::uint32_t n = 0; n < s.spec.nodes; ++n) {
    text += "NodeName=" + host_of(n) + " NodeHostname=" + host_of(n) + " NodeAddr=" + address_of(n) + " " + cpus +
            " State=UNKNOWN\n";
  }
  return text + "PartitionName=nodes Nodes=ALL Default=YES MaxTime=INFINITE State=UP\n";
}

/// Slurm's PMIx plugin by default runs a fence that collects data (Open MPI's modex) as a ring and
/// a fence without data (the barrier that ends MPI_Init) as a tree, two collectives with their own
/// states. Open MPI 4.1.4 then saw, in about 1 launch in 30 under load, a rank on one node leave
/// MPI_Init while its peers on the other node still waited in the modex: its first rendezvous
/// reached them before ob1 had registered its handlers, and they crashed or the step hung
/// (docs/cluster.md, "One fence algorithm"). One algorithm for both orders them.
constexpr const char* kMpiConf =
    "# Slurm's PMIx plugin of mpimon's emulated cluster (docs/cluster.md, \"One fence algorithm\").\n"
    "PMIxCollFence=tree\n";

std::string srun_script(const std::string& name) {
  return "#!/bin/sh\n# srun of mpimon's emulated cluster '" + name +
         "' (docs/cluster.md), for --launcher: Slurm's srun on node0.\nexec " + slurm_command_path(name) +
         " srun \"$@\"\n";
}

/// Starts a daemon (it forks and returns) with the cluster's marker and Slurm configuration.
void start_daemon(const std::string& name, const std::string& what, const std::vector<std::string>& argv) {
  LaunchResult r =
      run_process(argv, {{"MPIMON_CLUSTER", name}, {"SLURM_CONF", slurm_conf(name)}}, std::chrono::seconds(60));
  if (r.exit_code != 0) {
    raise_error(Error::Kind::system, what,
                "did not start (exit code " + std::to_string(r.exit_code) + "): " + r.output +
                    "; its log: " + cluster_directory(name) + "/slurm/log, munge/munged.log");
  }
}

/// The command line that runs `argv` in node `node`, entered as the agent enters it.
std::vector<std::string> on_node(const std::string& name, std::uint32_t node, const std::vector<std::string>& argv) {
  const std::string enter =
      "hostname " + host_of(node) + " && mount -t tmpfs -o mode=1777 mpimon-shm /dev/shm && exec \"$@\"";
  std::vector<std::string> line{"ip", "netns", "exec", node_namespace(name, node), "unshare", "--uts", "--mount", "sh",
                                "-c", enter,   "sh"};
  line.insert(line.end(), argv.begin(), argv.end());
  return line;
}

void write_munge_key(const fs::path& path) {
  std::random_device random;
  std::string key(128, '\0');  // 1024 bits, as mungekey makes
  for (auto& c : key) c = static_cast<char>(random() & 0xff);
  write_text(path, key, fs::perms::owner_read | fs::perms::owner_write);
}

std::string tail_of(const fs::path& log, std::size_t lines) {
  std::ifstream in(log);
  std::vector<std::string> all;
  for (std::string l; std::getline(in, l);) all.push_back(l);
  std::string text;
  for (std::size_t i = all.size() > lines ? all.size() - lines : 0; i < all.size(); ++i) text += "\n  " + all[i];
  return text.empty() ? " (empty)" : text;
}

void wait_until_idle(const ClusterState& s) {
  const std::string& name = s.spec.name;
  const auto deadline = std::chrono::steady_clock::now() + kIdleTimeout;
  std::string states;
  while (std::chrono::steady_clock::now() < deadline) {
    states = slurm_node_states(name);
    std::uint32_t idle = 0;
    for (std::uint32_t n = 0; n < s.spec.nodes; ++n) {
      idle += (", " + states + ",").find(", " + host_of(n) + " idle,") != std::string::npos ? 1 : 0;
    }
    if (idle == s.spec.nodes) return;
    std::this_thread::sleep_for(std::chrono::milliseconds(300));
  }
  raise_error(Error::Kind::system, "--slurm",
              "the nodes were not all idle after " + std::to_string(kIdleTimeout.count()) + " s; sinfo says: " +
                  states + "\nslurmctld's log ends:" + tail_of(slurm_directory(name) / "log" / "slurmctld.log", 5) +
                  "\nnode0's slurmd log ends:" + tail_of(slurm_directory(name) / "log" / "slurmd.node0.log", 5));
}

}  // namespace

bool is_slurm_command(const std::string& program) {
  static const std::array<const char*, 14> commands{"srun",     "salloc",   "sbatch", "sinfo",   "squeue",
                                                    "scontrol", "scancel",  "sacct",  "sattach", "sstat",
                                                    "sbcast",   "strigger", "sprio",  "sdiag"};
  for (const char* c : commands) {
    if (program == c) return true;
  }
  return false;
}

std::string missing_slurm_programs() {
  static const std::array<std::pair<const char*, const char*>, 5> needed{{{"munged", "munge"},
                                                                          {"slurmctld", "slurmctld"},
                                                                          {"slurmd", "slurmd"},
                                                                          {"srun", "slurm-client"},
                                                                          {"sinfo", "slurm-client"}}};
  std::string missing;
  for (const auto& [program, package] : needed) {
    if (program_path(program).empty()) {
      missing += (missing.empty() ? "" : ", ") + std::string(program) + " (package " + package + ")";
    }
  }
  return missing;
}

std::string slurm_command_script(const std::string& name) {
  return "#!/bin/bash\n# Slurm commands of mpimon's emulated cluster '" + name +
         "' (docs/cluster.md): DIR/slurm-command COMMAND ARGS... runs\n"
         "# COMMAND on node0 (the login node: its namespaces, hostname node0) with the cluster's Slurm.\n"
         "export SLURM_CONF=" +
         slurm_conf(name) + "\n" + cluster_environment(name) + "host=node0\ncommand='exec \"$@\"'\nexec " +
         enter_node_command(name) + " \"$@\"\n";
}

void start_slurm(const ClusterState& s) {
  const std::string& name = s.spec.name;
  const fs::path slurm = slurm_directory(name), munge = munge_directory(name);
  // munged refuses a socket directory that others cannot enter, or one they may write to.
  const auto open = fs::perms::owner_all | fs::perms::group_read | fs::perms::group_exec | fs::perms::others_read |
                    fs::perms::others_exec;
  for (const auto& d : {slurm / "state", slurm / "log", munge}) fs::create_directories(d);
  for (std::uint32_t n = 0; n < s.spec.nodes; ++n) {
    fs::create_directories(slurm / "spool" / host_of(n));
    fs::create_directories(slurm / "tmp" / host_of(n));
  }
  fs::permissions(cluster_directory(name), open);
  fs::permissions(munge, open);
  write_munge_key(munge / "munge.key");
  write_text(slurm / "slurm.conf", slurm_conf_text(s));
  write_text(slurm / "cgroup.conf",
             "# No cgroup is used (task/none, proctrack/linuxproc); the v1 plugin looks for no mount until then.\n"
             "CgroupPlugin=cgroup/v1\n");
  write_text(slurm / "mpi.conf", kMpiConf);
  write_text(slurm_command_path(name), slurm_command_script(name), kExecutable);
  write_text(cluster_srun(name), srun_script(name), kExecutable);

  const std::string m = munge.string();
  start_daemon(
      name, "munged",
      {program_path("munged"), "--socket=" + m + "/socket", "--key-file=" + m + "/munge.key",
       "--pid-file=" + m + "/munged.pid", "--log-file=" + m + "/munged.log", "--seed-file=" + m + "/munged.seed"});
  start_daemon(name, "slurmctld", on_node(name, 0, {program_path("slurmctld"), "-f", slurm_conf(name)}));
  for (std::uint32_t n = 0; n < s.spec.nodes; ++n) {
    start_daemon(name, "slurmd on " + host_of(n),
                 on_node(name, n, {program_path("slurmd"), "-f", slurm_conf(name), "-N", host_of(n)}));
  }
  wait_until_idle(s);
}

std::vector<int> cluster_daemons(const std::string& name) {
  const fs::path dir = cluster_directory(name);
  std::vector<fs::path> files{munge_directory(name) / "munged.pid", slurm_directory(name) / "slurmctld.pid"};
  std::error_code ec;
  for (const auto& e : fs::directory_iterator(slurm_directory(name), ec)) {
    if (e.path().filename().string().rfind("slurmd.", 0) == 0 && e.path().extension() == ".pid") {
      files.push_back(e.path());
    }
  }
  std::vector<int> pids;
  for (const auto& file : files) {
    int pid = 0;
    if (!(std::ifstream(file) >> pid) || pid <= 1) continue;
    // Still the daemon that wrote the file: its command line names the cluster's directory.
    std::ifstream cmdline("/proc/" + std::to_string(pid) + "/cmdline");
    const std::string line((std::istreambuf_iterator<char>(cmdline)), std::istreambuf_iterator<char>());
    if (line.find(dir.string()) != std::string::npos) pids.push_back(pid);
  }
  return pids;
}

}  // namespace mpimon::harness::cluster_detail
