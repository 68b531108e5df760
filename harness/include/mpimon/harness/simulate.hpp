#pragma once
// Launching SimGrid's SMPI for `mpimon simulate` (docs/simulate.md): a platform read by SimGrid
// before anything runs, one smpirun per mapping (the mapping's hosts as SMPI's host order), the
// simulated time, where SMPI put each rank (-map) and the bytes each rank sent to each other
// (SMPI's own Paje trace, collectives' internal messages included).

#include <chrono>
#include <cstdint>
#include <functional>
#include <map>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "mpimon/harness/paje_trace.hpp"
#include "mpimon/matrices/matrix.hpp"
#include "mpimon/results/apps.hpp"

namespace mpimon::harness {

/// A platform as SimGrid reads it (mpimon-simgrid-platform).
struct PlatformInfo {
  std::string simgrid_version;                    ///< "3.32.0"
  std::vector<std::string> hosts;                 ///< in SimGrid's order
  std::map<std::string, std::uint32_t> cores;     ///< of each host
  std::map<std::string, std::string> properties;  ///< of every zone (key -> value)
};

/// Reads `platform` with SimGrid and checks that every host of `used` is one of its hosts, joined to
/// the first by routes both ways. Throws Error::Kind::input naming the file with SimGrid's reason
/// (a parse error names its line), or naming the host the platform lacks; Error::Kind::system when
/// the reader (`reader`, mpimon-simgrid-platform) cannot run.
PlatformInfo read_platform(const std::string& reader, const std::string& platform,
                           const std::vector<std::string>& used);

/// The SMPI settings mpimon simulate gives every run before the user's (--smpi KEY=VALUE, which
/// may override them): computation measured here counts as done at 1 Gflop/s (smpi/host-speed), and
/// the simulated time is printed at the end (smpi/display-timing).
std::vector<std::pair<std::string, std::string>> default_smpi_settings();

/// Throws Error::Kind::usage naming --smpi unless `text` is KEY=VALUE with a key of SimGrid's form
/// (letters, digits, '/', '-', '_', '.'); returns the pair.
std::pair<std::string, std::string> parse_smpi_setting(const std::string& text);

struct Simulation {
  std::string smpirun = "smpirun";
  std::string platform;                                       ///< the platform file
  std::vector<std::string> hosts;                             ///< the host of each rank, rank 0 first: -np is its size
  std::vector<std::pair<std::string, std::string>> settings;  ///< --cfg=KEY:VALUE, in order
  std::vector<std::string> argv;                              ///< the SMPI program and its arguments
  /// Instead of a program: a time-independent trace (smpirun -replay), SMPI's replay of it.
  std::string replay;
  bool workload = false;      ///< mpimon-workload: the time is its report's
  std::string time_regex;     ///< else a time the program prints; "" for the simulated clock
  bool trace_traffic = true;  ///< count bytes per rank pair (SMPI's Paje trace)
  std::chrono::seconds timeout{86400};
};

struct SimulationResult {
  std::string status;                   ///< "ok", or why not
  double seconds = 0;                   ///< the time compared: the report's, or the simulated clock's
  std::string time_source;              ///< "workload", "reported" or "simulated"
  double simulated_seconds = 0;         ///< the simulated clock when the simulation ended
  double wall_seconds = 0;              ///< how long the simulation took here
  std::vector<std::string> rank_hosts;  ///< where SMPI put each rank (its -map lines)
  std::optional<TraceTraffic> traffic;  ///< what each rank sent each other (trace_traffic)
  std::string report;                   ///< the workload's JSON ("" otherwise)
  std::string command;                  ///< the smpirun line, as a user would type it
  std::string output;                   ///< smpirun's output
};

/// Runs one simulation in a scratch directory (its hostfile, trace and SMPI's temporary files are
/// removed at the end and on interruption). A run that fails, times out, prints no simulated time,
/// puts a rank elsewhere than on its host, or whose workload check fails has a status saying so.
SimulationResult run_simulation(const Simulation& s);

/// Told when each simulation of run_simulations starts and ends (its index), one call at a time.
struct SimulationProgress {
  std::function<void(std::size_t)> started;
  std::function<void(std::size_t, const SimulationResult&)> ended;
};

/// Runs every simulation of `runs`, up to `jobs` at once: SimGrid simulates in one thread, so
/// independent mappings fill a machine's cores side by side. Results in the order of `runs`; a
/// simulation's wall time is then measured beside the others'.
std::vector<SimulationResult> run_simulations(const std::vector<Simulation>& runs, unsigned jobs,
                                              const SimulationProgress& progress);

/// "[rank R] -> HOST" lines of SMPI's -map (smpi/map): the host of ranks 0..np-1 ("" when a rank has
/// no line).
std::vector<std::string> parse_rank_map(const std::string& output, std::uint32_t np);
/// "Simulated time: S seconds." (smpi/display-timing): S, or nothing.
std::optional<double> parse_simulated_time(const std::string& output);
/// `traffic` as the matrices file `mpimon record` would write of a run monitored in mode 1 (every
/// message external: the PML's view, collectives decomposed; no size histograms), one dump named
/// `dump`: .prof dumps in Open MPI's format, merged. For `mpimon place` where no run can be
/// recorded (the simulation's scale).
void write_traffic_matrices(const TraceTraffic& traffic, const std::string& output, const std::string& dump,
                            const std::string& generator);

/// `traffic` (rank x rank) summed over the hosts of the ranks: host x host, in the order of `hosts`.
SparseMatrix fold_onto_hosts(const SparseMatrix& traffic, const std::vector<std::string>& rank_hosts,
                             const std::vector<std::string>& hosts);

}  // namespace mpimon::harness
