// What `mpimon simulate` prints of its simulations (cli/simulate_report.hpp).

#include "simulate_report.hpp"

#include <cstdio>
#include <filesystem>
#include <iostream>

#include "cli_support.hpp"
#include "mpimon/base/units.hpp"
#include "mpimon/harness/locations.hpp"

namespace mpimon::cli {

namespace fs = std::filesystem;

TreeTopology linked_topology(const SimulateOptions& o) {
  TreeTopology topo = parse_topology(o.topology);
  const LinkSpec network{static_cast<double>(parse_rate(o.rate, "--rate")), parse_duration(o.latency, "--latency")};
  const LinkSpec node{static_cast<double>(parse_rate(o.node_rate, "--node-rate")),
                      parse_duration(o.node_latency, "--node-latency")};
  topo.links.assign(topo.levels(), node);
  for (std::uint32_t l = 0; l < topo.node_levels; ++l) topo.links[l] = network;
  return topo;
}

std::string resolve_program(const std::string& program) {
  if (program.find('/') == std::string::npos) {
    const std::string own = harness::own_file(program);
    if (fs::exists(own)) return own;
  }
  if (!fs::is_regular_file(program)) {
    throw po::error("PROGRAM '" + program +
                    "' is not a file (an SMPI build: smpicxx, or mpimon's own "
                    "mpimon-workload-smpi, mpimon-run-collective-smpi, mpimon-demo-ring-smpi)");
  }
  return fs::absolute(program).string();
}

int report_simulations(std::vector<harness::SimulatedOutcome>& outcomes, const harness::SimulationContext& c) {
  const auto rows = harness::record_simulations(outcomes, c);
  write_simulated_table(rows, c.label, c.np, std::cout);
  std::cout << "platform: " << c.platform_file << "\nresults: " << c.output << "\n" << std::flush;
  std::size_t failed = 0, differ = 0;
  for (const auto& out : outcomes) {
    failed += out.run.status == "ok" ? 0 : 1;
    differ += out.traffic_differs ? 1 : 0;
  }
  if (failed > 0) {
    throw Error(Error::Kind::launch, std::to_string(failed) + " of " + std::to_string(outcomes.size()) +
                                         " simulations failed (their status: mpimon show " + c.output + ")");
  }
  if (differ > 0) {
    throw Error(Error::Kind::input, "the simulated traffic differs from --matrices for " + std::to_string(differ) +
                                        " mapping(s): the simulation did not send what was recorded (see the rows)");
  }
  return kExitOk;
}

}  // namespace mpimon::cli
