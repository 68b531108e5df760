#pragma once
// `mpimon simulate`'s options and its report (docs/simulate.md): the harness records the
// simulations (harness/simulation_report.hpp); this prints their table and says what failed.

#include <cstdint>
#include <string>
#include <vector>

#include "mpimon/harness/simulation_report.hpp"

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

/// Records the simulations (the results file, --traffic-out, --json) and prints their table; throws
/// Error{launch} when a simulation failed and Error{input} when a simulation's traffic differs from
/// the recording (after writing the results).
int report_simulations(std::vector<harness::SimulatedOutcome>& outcomes, const harness::SimulationContext& c);

}  // namespace mpimon::cli
