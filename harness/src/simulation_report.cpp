// What `mpimon simulate` makes of its simulations (harness/include/mpimon/harness/simulation_report.hpp).

#include "mpimon/harness/simulation_report.hpp"

#include <unistd.h>

#include <algorithm>
#include <filesystem>
#include <thread>

#include "mpimon/base/error.hpp"
#include "mpimon/base/output.hpp"
#include "mpimon/base/version.hpp"
#include "mpimon/harness/launch_pairs.hpp"

namespace mpimon::harness {

namespace {

std::vector<std::string> distinct_hosts(const std::vector<std::string>& rank_hosts) {
  std::vector<std::string> hosts;
  for (const auto& h : rank_hosts) {
    if (std::find(hosts.begin(), hosts.end(), h) == hosts.end()) hosts.push_back(h);
  }
  return hosts;
}

// The configuration of the whole simulation: its settings, then each mapping with its cost and check.
std::map<std::string, std::string> configuration_of(const std::vector<SimulatedOutcome>& outcomes,
                                                    const SimulationContext& c, bool first_traffic) {
  auto configuration = simulation_configuration(c.simulation, c.np, c.label, c.platform, c.platform_text);
  std::vector<SimulatedMapping> mappings;
  std::vector<std::string> texts;
  for (const auto& o : outcomes) {
    SimulatedMapping m;
    m.arm = o.arm.arm;
    m.name = o.arm.name;
    m.rankfile = o.arm.rankfile;
    m.modelled = o.modelled;
    m.traffic = o.traffic;
    mappings.push_back(std::move(m));
    texts.push_back(o.arm.rankfile_text);
  }
  describe_simulated_mappings(configuration, mappings, texts);
  configuration["platform_file"] = c.platform_file;
  configuration["case"] = c.label;
  configuration["jobs"] = std::to_string(c.jobs) + " (simulations at once: wall_seconds shared the cores)";
  configuration["topology"] = c.tree ? c.tree->source + " (" + c.tree->tleaf() + ")" : "";
  configuration["modelled_traffic"] = c.recorded      ? "the recording " + c.matrices
                                      : first_traffic ? "the first simulation's"
                                                      : "";
  return configuration;
}

// --traffic-out: the first simulation that counted its traffic, as a matrices file.
void write_first_traffic(const std::vector<SimulatedOutcome>& outcomes, const SimulationContext& c) {
  const auto first =
      std::find_if(outcomes.begin(), outcomes.end(), [](const auto& o) { return o.run.traffic.has_value(); });
  if (first == outcomes.end()) throw Error(Error::Kind::launch, "--traffic-out: no simulation counted its traffic");
  write_traffic_matrices(*first->run.traffic, c.traffic_out, c.label,
                         "mpimon simulate: the traffic of mapping " + first->arm.arm + " (" + first->arm.name +
                             ") in SimGrid " + c.platform.simgrid_version + "'s SMPI");
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
    const auto want = fold_onto_hosts(recorded, o.arm.hosts, hosts).to_dense();
    const auto got = fold_onto_hosts(o.run.traffic->bytes, o.arm.hosts, hosts).to_dense();
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

std::vector<SimulatedMapping> record_simulations(std::vector<SimulatedOutcome>& outcomes, const SimulationContext& c) {
  if (c.recorded) check_traffic(outcomes, *c.recorded, "the recording " + c.matrices);
  const auto first_traffic =
      std::find_if(outcomes.begin(), outcomes.end(), [](const auto& o) { return o.run.traffic.has_value(); });
  const bool counted = first_traffic != outcomes.end();
  if (c.tree && (c.recorded || counted))
    cost_mappings(outcomes, *c.tree, c.recorded ? *c.recorded : first_traffic->run.traffic->bytes);

  std::vector<AppLaunchRecord> launches;
  for (const auto& o : outcomes) {
    launches.push_back(simulation_record(o.run, c.label, o.arm.arm, static_cast<std::uint32_t>(launches.size()), c.np,
                                         distinct_hosts(o.arm.hosts)));
  }
  write_simulation_results(c.output, configuration_of(outcomes, c, counted), launches);
  if (!c.traffic_out.empty()) write_first_traffic(outcomes, c);
  const AppResults written(c.output);
  auto rows = simulated_mappings(written.configuration(), written.launches());
  if (!c.json.empty()) {
    const std::string document = simulated_mappings_json(rows);
    write_file_atomically(c.json, [&](std::ostream& out) { out << document; });
  }
  return rows;
}

std::map<std::string, std::string> simulation_configuration(const Simulation& s, std::uint32_t np,
                                                            const std::string& label, const PlatformInfo& platform,
                                                            const std::string& platform_text) {
  char host[256] = "";
  gethostname(host, sizeof host - 1);
  std::vector<std::string> settings;
  for (const auto& [key, value] : s.settings) settings.push_back(key + "=" + value);
  return {
      {"generator", std::string("mpimon ") + kVersion},
      {"simulator", "SimGrid " + platform.simgrid_version + " (SMPI, " + s.smpirun + ")"},
      {"simgrid_version", platform.simgrid_version},
      {"apps", label},
      {"programs", label + ": " + (s.replay.empty() ? join(s.argv, " ") : "smpirun -replay " + s.replay)},
      {"np", std::to_string(np)},
      {"pairs", "1"},
      {"platform_file", s.platform},
      {"platform", platform_text},
      {"smpi_settings", join(settings, " ")},
      {"traffic_source", s.trace_traffic ? "SMPI's Paje trace (tracing/smpi/internals, display-sizes): every message, "
                                           "collectives' internal ones included"
                                         : "not counted"},
      {"time_regex", s.time_regex},
      {"time_source",
       "simulated: SimGrid's clock when the simulation ended (smpi/display-timing); workload: the timed loop the "
       "built-in workload reports (MPI_Wtime, simulated); reported: the last match of time_regex in the output "
       "(simulated). wall_seconds: how long the simulation took on this machine"},
      {"summary_statistic", "one simulation per mapping: a simulation is deterministic, so there are no pairs"},
      {"host", host},
      {"cpus", std::to_string(std::thread::hardware_concurrency())}};
}

AppLaunchRecord simulation_record(const SimulationResult& r, const std::string& app, const std::string& arm,
                                  std::uint32_t index, std::uint32_t np, const std::vector<std::string>& hosts) {
  AppLaunchRecord l;
  l.key = {app, np, 1, arm};
  l.position = index;
  l.status = r.status;
  l.seconds = r.seconds;
  l.wall_seconds = r.wall_seconds;
  l.time_source = r.time_source;
  l.command = r.command;
  l.report = r.report;
  if (r.status == "ok") l.simulated_seconds = r.simulated_seconds;
  for (std::size_t rank = 0; rank < r.rank_hosts.size(); ++rank) {
    l.bindings += (rank ? "\n" : "") + std::string("[rank ") + std::to_string(rank) + "] -> " + r.rank_hosts[rank];
  }
  if (r.traffic) {
    const SparseMatrix by_host = fold_onto_hosts(r.traffic->bytes, r.rank_hosts, hosts);
    for_each_nonzero(by_host, [&](std::uint32_t i, std::uint32_t j, std::uint64_t v) {
      l.host_traffic += hosts[i] + " " + hosts[j] + " " + std::to_string(v) + "\n";
    });
  }
  return l;
}

}  // namespace mpimon::harness
