#pragma once
// `mpimon simulate`'s options and what it makes of its simulations (docs/simulate.md): each
// mapping's modelled cost, the check of its simulated traffic against a recording, the results
// file, the JSON and the table.

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "mpimon/harness/simulate.hpp"
#include "mpimon/placement/placement.hpp"
#include "mpimon/results/simulated.hpp"

namespace mpimon::cli {

struct SimulateOptions {
  std::string platform, topology, rate, latency, network, node_rate, node_latency, output, json, matrices, dump, name,
      traffic_out;
  std::vector<std::string> rankfiles, smpi;
  std::uint32_t np = 0;
  unsigned jobs = 1;  ///< simulations at once
  bool no_traffic = false;
};

/// The tree of --topology with the links of its levels: --rate/--latency above the nodes,
/// --node-rate/--node-latency inside them (base/units.hpp reads them).
TreeTopology linked_topology(const SimulateOptions& o);

/// PROGRAM: a path, or the name of one of mpimon's SMPI programs (mpimon-workload-smpi, ...), found
/// where mpimon finds its own programs. A usage error when it is neither.
std::string resolve_program(const std::string& program);

/// One mapping simulated, with what the command knows of it.
struct SimulatedOutcome {
  harness::SimulatedArm arm;
  harness::SimulationResult run;
  std::optional<Mapping> mapping;  ///< its leaves on the tree (when the tree is known)
  std::optional<double> modelled;  ///< its modelled cost
  std::string traffic;             ///< the traffic check's verdict ("" when not checked)
  bool traffic_differs = false;
};

/// What the report of a simulation needs beside its outcomes.
struct SimulationContext {
  const harness::Simulation& simulation;
  std::string label, output, json, matrices, traffic_out;
  std::uint32_t np = 0;
  const std::optional<TreeTopology>& tree;      ///< the platform's, when known
  const std::optional<SparseMatrix>& recorded;  ///< --matrices: external + internal bytes
  const harness::PlatformInfo& platform;
  std::string platform_text, platform_file;
  unsigned jobs = 1;  ///< simulations that ran at once (their wall times shared the cores)
};
/// Costs the mappings, checks their traffic against the recording, writes the results file and
/// the JSON, prints the table; throws Error{launch} when a simulation failed and Error{input} when a
/// simulation's traffic differs from the recording (after writing the results).
int report_simulations(std::vector<SimulatedOutcome>& outcomes, const SimulationContext& c);

/// The modelled cost of every mapping on `tree` (each outcome's mapping) and `traffic` (rank x rank
/// bytes: the recording, else the first simulation's): sets `modelled`.
void cost_mappings(std::vector<SimulatedOutcome>& outcomes, const TreeTopology& tree, const SparseMatrix& traffic);

/// Compares each simulation's bytes between hosts with `recorded` (rank x rank, the monitoring's
/// external and internal bytes) folded onto the same hosts: sets `traffic` and `traffic_differs`.
void check_traffic(std::vector<SimulatedOutcome>& outcomes, const SparseMatrix& recorded, const std::string& source);

/// The results file (format mpimon-apps, kind simulated): the configuration, one launch per
/// mapping, the /mappings table; written whole, atomically.
void write_simulation_results(const std::string& path, std::map<std::string, std::string> configuration,
                              const std::vector<SimulatedOutcome>& outcomes, const std::string& label,
                              std::uint32_t np);

/// `--json FILE`: {"mappings": [{"rankfile", "simulated_seconds", "modelled_cost", ...}, ...]} in the
/// order given.
void write_simulation_json(const std::string& path, const std::vector<SimulatedOutcome>& outcomes,
                           const std::vector<SimulatedMapping>& rows);

}  // namespace mpimon::cli
