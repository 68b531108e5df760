#pragma once
// What `mpimon simulate` makes of its simulations (docs/simulate.md): each mapping's modelled cost
// (mpimon place's model), the check of its simulated traffic against a recording, and the files
// it writes: the results file (analysis/results: simulated.hpp), the first simulation's traffic as
// a matrices file, the JSON. cli/simulate_report.cpp prints the rows.

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "mpimon/harness/simulate.hpp"
#include "mpimon/placement/placement.hpp"
#include "mpimon/results/simulated.hpp"

namespace mpimon::harness {

/// One mapping of a simulation: its arm (A, B, ...), its name (the rankfile's file name without
/// extension), the rankfile and the host of each rank it gives.
struct SimulatedArm {
  std::string arm, name, rankfile, rankfile_text;
  std::vector<std::string> hosts;
};

/// One mapping simulated, with what is known of it.
struct SimulatedOutcome {
  SimulatedArm arm;
  SimulationResult run;
  std::optional<Mapping> mapping;  ///< its leaves on the tree (when the tree is known)
  std::optional<double> modelled;  ///< its modelled cost
  std::string traffic;             ///< the traffic check's verdict ("" when not checked)
  bool traffic_differs = false;
};

/// What the record of a simulation needs beside its outcomes.
struct SimulationContext {
  const Simulation& simulation;
  std::string label, output, json, matrices, traffic_out;
  std::uint32_t np = 0;
  const std::optional<TreeTopology>& tree;      ///< the platform's, when known
  const std::optional<SparseMatrix>& recorded;  ///< --matrices: external + internal bytes
  const PlatformInfo& platform;
  std::string platform_text, platform_file;
  unsigned jobs = 1;  ///< simulations that ran at once (their wall times shared the cores)
};

/// Checks each simulation's traffic against the recording, costs the mappings (on the recording's
/// traffic, else the first simulation's), writes the results file, the traffic (traffic_out) and
/// the JSON (json) when asked; returns the rows of the results file. Sets each outcome's modelled
/// cost and traffic verdict.
std::vector<SimulatedMapping> record_simulations(std::vector<SimulatedOutcome>& outcomes, const SimulationContext& c);

/// The modelled cost of every mapping on `tree` (each outcome's mapping) and `traffic` (rank x rank
/// bytes): sets `modelled`.
void cost_mappings(std::vector<SimulatedOutcome>& outcomes, const TreeTopology& tree, const SparseMatrix& traffic);

/// Compares each simulation's bytes between hosts with `recorded` (rank x rank, the monitoring's
/// external and internal bytes) folded onto the same hosts: sets `traffic` and `traffic_differs`.
void check_traffic(std::vector<SimulatedOutcome>& outcomes, const SparseMatrix& recorded, const std::string& source);

/// What a simulation's results file records of it (its configuration) beside its mappings
/// (describe_simulated_mappings): np (every arm's), the program line, the platform (file and text),
/// SimGrid's version, the SMPI settings, how the time is read; plus this machine's name and cores
/// and mpimon's version.
std::map<std::string, std::string> simulation_configuration(const Simulation& s, std::uint32_t np,
                                                            const std::string& label, const PlatformInfo& platform,
                                                            const std::string& platform_text);

/// The launch record of one simulation (its arm, np, pair 1, position `index`), for the results file;
/// its traffic folded onto `hosts` (host_traffic).
AppLaunchRecord simulation_record(const SimulationResult& r, const std::string& app, const std::string& arm,
                                  std::uint32_t index, std::uint32_t np, const std::vector<std::string>& hosts);

}  // namespace mpimon::harness
