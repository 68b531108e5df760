// What mpimon-overhead-bench records of its run (library, MCA settings, bindings, the calibration
// library) and how its ranks agree on a failure.

#include "overhead_bench.hpp"

#include <dlfcn.h>
#include <sched.h>

#include <algorithm>
#include <cstdlib>
#include <cstring>
#include <fstream>

#include "mpimon/mpi/mpi_support.hpp"

extern char** environ;

namespace mpimon::bench {

using mpi::check;

bool agree(bool ok, const std::string& message, int rank, int np) {
  const int mine = ok ? np : rank;
  int first_failing = np;
  check(MPI_Allreduce(&mine, &first_failing, 1, MPI_INT, MPI_MIN, MPI_COMM_WORLD), "MPI_Allreduce");
  if (first_failing == rank) std::fprintf(stderr, "mpimon-overhead-bench: error: %s\n", message.c_str());
  return first_failing == np;
}

std::string mpi_library_version() {
  char text[MPI_MAX_LIBRARY_VERSION_STRING];
  int len = 0;
  MPI_Get_library_version(text, &len);
  std::string s(text, static_cast<std::size_t>(std::max(len, 0)));
  s = s.substr(0, s.find('\n'));
  while (!s.empty() && (s.back() == '\0' || s.back() == ' ')) s.pop_back();
  return s;
}

// Rank 0's OMPI_MCA_* variables as key=value;... (sorted, prefix removed), without the per-launch
// bookkeeping mpirun itself sets (job id, URIs, session directories), which differ on every launch.
std::string mca_settings() {
  constexpr std::array kLauncherKeys = {"ess_base_jobid",       "ess_base_vpid",         "orte_ess_node_rank",
                                        "orte_hnp_uri",         "orte_local_daemon_uri", "orte_jobfam_session_dir",
                                        "orte_top_session_dir", "orte_tmpdir_base",      "orte_precondition_transports",
                                        "initial_wdir"};
  constexpr std::string_view prefix = "OMPI_MCA_";
  std::vector<std::string> items;
  for (char** e = environ; *e; ++e) {
    const std::string_view var = *e;
    if (!var.starts_with(prefix)) continue;
    const std::string_view kv = var.substr(prefix.size());
    const std::string_view key = kv.substr(0, kv.find('='));
    if (std::find(kLauncherKeys.begin(), kLauncherKeys.end(), key) != kLauncherKeys.end()) continue;
    items.emplace_back(kv);
  }
  std::sort(items.begin(), items.end());
  std::string out;
  for (const auto& item : items) out += (out.empty() ? "" : ";") + item;
  return out;
}

std::string monitoring_state(const Options& o) {
  if (o.mpit_off) return "loaded, stopped through MPI_T";
  if (o.interleave > 0 && o.switch_kind == "mpit") return "loaded, counting switched per block through MPI_T";
  const char* enable = std::getenv("OMPI_MCA_pml_monitoring_enable");
  // (an --interleave --switch delay run reports the monitoring as launched)
  if (enable && *enable && std::string_view(enable) != "0")
    return "on (pml_monitoring_enable=" + std::string(enable) + ")";
  return "off";
}

// This rank's CPU affinity as a compact list, e.g. "0-3,6".
std::string affinity() {
  cpu_set_t set;
  CPU_ZERO(&set);
  if (sched_getaffinity(0, sizeof set, &set) != 0) return "?";
  std::string out;
  for (int cpu = 0; cpu < CPU_SETSIZE;) {
    if (!CPU_ISSET(cpu, &set)) {
      ++cpu;
      continue;
    }
    int last = cpu;
    while (last + 1 < CPU_SETSIZE && CPU_ISSET(last + 1, &set)) ++last;
    out += (out.empty() ? "" : ",") + std::to_string(cpu) + (last > cpu ? "-" + std::to_string(last) : "");
    cpu = last + 1;
  }
  return out;
}

// Every rank's affinity gathered to rank 0: "0:{0};1:{1}" (collective; empty on other ranks).
std::string gather_binding(int rank, int np) {
  const std::string mine = affinity();
  const int len = static_cast<int>(mine.size());
  std::vector<int> lens(static_cast<std::size_t>(np)), displs(static_cast<std::size_t>(np));
  check(MPI_Gather(&len, 1, MPI_INT, lens.data(), 1, MPI_INT, 0, MPI_COMM_WORLD), "MPI_Gather");
  int total = 0;
  for (std::size_t r = 0; r < lens.size(); ++r) {
    displs[r] = total;
    total += lens[r];
  }
  std::string all(static_cast<std::size_t>(rank == 0 ? total : 0), '\0');
  check(MPI_Gatherv(mine.data(), len, MPI_CHAR, all.data(), lens.data(), displs.data(), MPI_CHAR, 0, MPI_COMM_WORLD),
        "MPI_Gatherv");
  if (rank != 0) return {};
  std::string out;
  for (std::size_t r = 0; r < lens.size(); ++r)
    out += (r ? ";" : "") + std::to_string(r) + ":{" +
           all.substr(static_cast<std::size_t>(displs[r]), static_cast<std::size_t>(lens[r])) + "}";
  return out;
}

// The calibration library (bench/calibration/pmpi_delay.c) describes itself when it is preloaded.
std::string calibration_description() {
  using Describe = const char* (*)();
  void* symbol = dlsym(RTLD_DEFAULT, "mpimon_pmpi_delay_describe");
  if (!symbol) return "none";
  const char* text = reinterpret_cast<Describe>(symbol)();
  return std::string("libmpimon-pmpi-delay: ") + (text ? text : "?");
}

// Whether this MPI can create a window on MPI_COMM_WORLD (Open MPI 4.1 cannot on a single process:
// no osc component accepts it). Collective; errors are returned, not fatal, for this one call.
std::string window_error() {
  MPI_Errhandler previous;
  check(MPI_Comm_get_errhandler(MPI_COMM_WORLD, &previous), "MPI_Comm_get_errhandler");
  check(MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN), "MPI_Comm_set_errhandler");
  char byte = 0;
  MPI_Win win = MPI_WIN_NULL;
  const int rc = MPI_Win_create(&byte, 1, 1, MPI_INFO_NULL, MPI_COMM_WORLD, &win);
  check(MPI_Comm_set_errhandler(MPI_COMM_WORLD, previous), "MPI_Comm_set_errhandler");
  MPI_Errhandler_free(&previous);
  if (rc == MPI_SUCCESS) {
    check(MPI_Win_free(&win), "MPI_Win_free");
    return {};
  }
  char text[MPI_MAX_ERROR_STRING];
  int len = 0;
  MPI_Error_string(rc, text, &len);
  return std::string(text, static_cast<std::size_t>(std::max(len, 0)));
}

}  // namespace mpimon::bench
