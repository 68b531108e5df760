// What `mpimon simulate` makes of its simulations (cli/simulate_report.hpp).

#include "simulate_report.hpp"

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <fstream>

#include "app_report.hpp"
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

namespace {

std::vector<std::string> distinct_hosts(const std::vector<std::string>& rank_hosts) {
  std::vector<std::string> hosts;
  for (const auto& h : rank_hosts) {
    if (std::find(hosts.begin(), hosts.end(), h) == hosts.end()) hosts.push_back(h);
  }
  return hosts;
}

}  // namespace

void cost_mappings(std::vector<SimulatedOutcome>& outcomes, const TreeTopology& tree, const SparseMatrix& traffic) {
  const AffinityGraph graph = fold_traffic(traffic);
  for (auto& o : outcomes) {
    if (o.mapping) o.modelled = static_cast<double>(evaluate_mapping(graph, tree, *o.mapping).cost);
  }
}

void check_traffic(std::vector<SimulatedOutcome>& outcomes, const SparseMatrix& recorded, const std::string& source) {
  for (auto& o : outcomes) {
    if (!o.run.traffic) continue;
    const auto hosts = distinct_hosts(o.arm.hosts);
    const auto want = harness::fold_onto_hosts(recorded, o.arm.hosts, hosts).to_dense();
    const auto got = harness::fold_onto_hosts(o.run.traffic->bytes, o.arm.hosts, hosts).to_dense();
    std::size_t differ = 0, worst = 0, pairs = 0;
    std::uint64_t between = 0;
    for (std::size_t k = 0; k < want.size(); ++k) {
      pairs += want[k] != 0 || got[k] != 0 ? 1 : 0;
      if (k / hosts.size() != k % hosts.size()) between += got[k];
      if (want[k] == got[k]) continue;
      const auto gap = [&](std::size_t i) { return want[i] > got[i] ? want[i] - got[i] : got[i] - want[i]; };
      if (differ++ == 0 || gap(k) > gap(worst)) worst = k;
    }
    if (differ == 0) {
      o.traffic = "equal to " + source + ": " + std::to_string(pairs) + " host pairs, " + std::to_string(between) +
                  " bytes between hosts";
    } else {
      o.traffic_differs = true;
      o.traffic = "DIFFERS from " + source + " on " + std::to_string(differ) + " of " + std::to_string(pairs) +
                  " host pairs; the most on " + hosts[worst / hosts.size()] + "->" + hosts[worst % hosts.size()] +
                  ": recorded " + std::to_string(want[worst]) + ", simulated " + std::to_string(got[worst]) + " bytes";
    }
  }
}

void write_simulation_results(const std::string& path, std::map<std::string, std::string> configuration,
                              const std::vector<SimulatedOutcome>& outcomes, const std::string& label,
                              std::uint32_t np) {
  for (const auto& o : outcomes) {
    if (o.modelled) {
      char text[64];
      std::snprintf(text, sizeof text, "%.17g", *o.modelled);
      configuration["modelled_" + o.arm.arm] = text;
    }
    if (!o.traffic.empty()) configuration["traffic_" + o.arm.arm] = o.traffic;
  }
  AtomicOutput out(path);
  std::filesystem::remove(out.temporary());  // HDF5 creates it
  AppResults::create(out.temporary(), configuration);
  AppResults results(out.temporary());
  std::uint32_t index = 0;
  for (const auto& o : outcomes) {
    results.append(harness::simulation_record(o.run, label, o.arm.arm, index++, np, distinct_hosts(o.arm.hosts)));
  }
  write_simulated_mappings(out.temporary(), simulated_mappings(configuration, results.launches()));
  out.commit();
}

void write_simulation_json(const std::string& path, const std::vector<SimulatedOutcome>& outcomes,
                           const std::vector<SimulatedMapping>& rows) {
  std::vector<std::string> rankfiles, time_sources;
  for (const auto& o : outcomes) {
    rankfiles.push_back(o.arm.rankfile);
    time_sources.push_back(o.run.time_source);
  }
  const std::string document = simulated_mappings_json(rows, rankfiles, time_sources);
  write_file_atomically(path, [&](std::ostream& out) { out << document; });
}

int report_simulations(std::vector<SimulatedOutcome>& outcomes, const SimulationContext& c) {
  if (c.recorded) check_traffic(outcomes, *c.recorded, "the recording " + c.matrices);
  std::optional<SparseMatrix> first_traffic;  // the first simulation's that counted its traffic
  for (const auto& out : outcomes) {
    if (!first_traffic && out.run.traffic) first_traffic = out.run.traffic->bytes;
  }
  if (c.tree && (c.recorded || first_traffic))
    cost_mappings(outcomes, *c.tree, c.recorded ? *c.recorded : *first_traffic);

  auto configuration = harness::simulation_configuration(
      c.simulation, c.np,
      [&] {
        std::vector<harness::SimulatedArm> arms;
        for (const auto& out : outcomes) arms.push_back(out.arm);
        return arms;
      }(),
      c.label, c.platform, c.platform_text);
  configuration["platform_file"] = c.platform_file;
  configuration["case"] = c.label;
  configuration["jobs"] = std::to_string(c.jobs) + " (simulations at once: wall_seconds shared the cores)";
  configuration["topology"] = c.tree ? c.tree->source + " (" + c.tree->tleaf() + ")" : "";
  configuration["modelled_traffic"] = c.recorded      ? "the recording " + c.matrices
                                      : first_traffic ? "the first simulation's"
                                                      : "";
  write_simulation_results(c.output, configuration, outcomes, c.label, c.np);
  if (!c.traffic_out.empty()) {
    const auto first =
        std::find_if(outcomes.begin(), outcomes.end(), [](const auto& o) { return o.run.traffic.has_value(); });
    if (first == outcomes.end()) throw Error(Error::Kind::launch, "--traffic-out: no simulation counted its traffic");
    AtomicOutput out(c.traffic_out);
    fs::remove(out.temporary());  // HDF5 creates it
    harness::write_traffic_matrices(*first->run.traffic, out.temporary(), c.label,
                                    "mpimon simulate: the traffic of mapping " + first->arm.arm + " (" +
                                        first->arm.name + ") in SimGrid " + c.platform.simgrid_version + "'s SMPI");
    out.commit();
  }
  const auto rows = simulated_mappings(AppResults(c.output).configuration(), AppResults(c.output).launches());
  if (!c.json.empty()) write_simulation_json(c.json, outcomes, rows);
  print_simulated_table(rows, c.label, c.np);
  std::printf("platform: %s\nresults: %s\n", c.platform_file.c_str(), c.output.c_str());
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
