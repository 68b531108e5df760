// `mpimon simulate`: one program under several mappings (rankfiles) on a simulated platform, with
// SimGrid's SMPI; times from the simulated clock, each beside the mapping's modelled cost
// (docs/simulate.md). Everything is checked before the first simulation starts.

#include <cstdio>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <sstream>

#include "app_options.hpp"
#include "cli_support.hpp"
#include "commands.hpp"
#include "mpimon/harness/locations.hpp"
#include "mpimon/matrices/export.hpp"
#include "mpimon/placement/mapping_files.hpp"
#include "mpimon/placement/simgrid_platform.hpp"
#include "simulate_report.hpp"

namespace mpimon::cli {

namespace fs = std::filesystem;

namespace {

std::string read_text(const std::string& path) {
  std::ifstream in(path);
  std::ostringstream text;
  text << in.rdbuf();
  return text.str();
}

}  // namespace

int simulate_command(const std::string& name, const std::vector<std::string>& all_args) {
  Command cmd{
      name,
      "(--platform P.xml | --topology TOPO [--rate 10gbit] [--latency 1us] [--network fat-tree|flat]\n"
      "       [--node-rate 80gbit] [--node-latency 0.1us]) --rankfile A.rf [--rankfile B.rf ...] --np N\n"
      "       [--smpi KEY=VALUE]... [-o RESULTS.h5] [--json FILE] [--matrices RUN.h5 [--dump NAME]] "
      "[--traffic-out F.h5]\n"
      "       [--time-regex REGEX] [--name LABEL] [--no-traffic] [--smpirun CMD] [--timeout SECONDS] [--jobs N]\n"
      "       (-- PROGRAM ARGS | --replay TRACE)",
      "Simulates an SMPI build of PROGRAM (smpicxx; mpimon's own: mpimon-workload-smpi,\n"
      "mpimon-run-collective-smpi, mpimon-demo-ring-smpi) with SimGrid under each rankfile's mapping,\n"
      "on a platform given or built from a placement tree (written beside RESULTS.h5 for smpirun). Prints\n"
      "one row per mapping: the SIMULATED time, its ratio to the first, and the MODELLED cost of the\n"
      "mapping (mpimon place's model, on the traffic of --matrices or else of the simulation). With\n"
      "--matrices (a recorded run), each simulation's bytes between hosts must equal the recording's.\n"
      "The results file is bench placement's format; mpimon show, plot and plot placement read it\n"
      "(docs/simulate.md)."};
  const auto [args, command] = split_command(all_args);
  return run_command(cmd, [&] {
    SimulateOptions o;
    harness::Simulation s;
    int timeout = 0;
    po::options_description options("Options");
    options.add_options()("platform", po::value(&o.platform), "a SimGrid platform file (XML)")(
        "topology", po::value(&o.topology), "a placement tree (mpimon place's --topology): the platform is built")(
        "rate", po::value(&o.rate)->default_value("10gbit"), "--topology: link rate between nodes (tc's units)")(
        "latency", po::value(&o.latency)->default_value("1us"), "--topology: latency of each link between nodes")(
        "network", po::value(&o.network)->default_value("fat-tree"), "--topology: fat-tree or flat (one switch)")(
        "node-rate", po::value(&o.node_rate)->default_value("80gbit"), "--topology: rate of each level in a node")(
        "node-latency", po::value(&o.node_latency)->default_value("0.1us"),
        "--topology: latency of each level in a node")("rankfile", po::value(&o.rankfiles)->composing(),
                                                       "a mapping (Open MPI rankfile); repeat: A, B, ...")(
        "np", po::value(&o.np)->notifier(in_range<std::uint32_t>("np", 1)), "processes (required)")(
        "smpi", po::value(&o.smpi)->composing(), "KEY=VALUE: a SimGrid setting (--cfg=KEY:VALUE) for every run")(
        "output,o", po::value(&o.output)->default_value("simulation.h5"), "the results file")(
        "json", po::value(&o.json), "also write the rows as JSON")(
        "matrices", po::value(&o.matrices), "a recorded run (mpimon record): costs and the traffic check")(
        "traffic-out", po::value(&o.traffic_out),
        "write the first simulation's traffic as a matrices file (mpimon place)")(
        "dump", po::value(&o.dump), "--matrices: the dump (required when the file holds several)")(
        "time-regex", po::value(&s.time_regex), "take the time PROGRAM prints (first group: seconds)")(
        "replay", po::value(&s.replay), "instead of -- PROGRAM: SMPI's replay of this time-independent trace")(
        "name", po::value(&o.name), "label of the program (default: its file name)")(
        "no-traffic", po::bool_switch(&o.no_traffic), "do not trace the messages (no traffic check)")(
        "smpirun", po::value(&s.smpirun)->default_value("smpirun"), "SimGrid's launcher")(
        "timeout", po::value(&timeout)->default_value(86400)->notifier(in_range<int>("timeout", 1)),
        "seconds per simulation")("jobs,j",
                                  po::value(&o.jobs)->default_value(1)->notifier(in_range<unsigned>("jobs", 1)),
                                  "simulations at once (SimGrid uses one core each)");
    po::variables_map vm;
    if (!parse_options(cmd, args, options, {}, vm)) return kExitOk;
    if (o.platform.empty() == o.topology.empty()) throw po::error("give either --platform or --topology");
    for (const char* topology_only : {"rate", "latency", "network", "node-rate", "node-latency"}) {
      if (!o.platform.empty() && !vm[topology_only].defaulted()) {
        throw po::error(std::string("--") + topology_only +
                        " describes the platform --topology builds, not --platform");
      }
    }
    if (o.rankfiles.empty()) throw po::error("give at least one --rankfile");
    if (vm.count("np") == 0) throw po::error("--np is required");
    if (command.empty() == s.replay.empty())
      throw po::error("give either --replay TRACE or the program after --: -- PROGRAM ARGS");
    if (!s.replay.empty() && !fs::is_regular_file(s.replay))
      throw po::error("--replay: no trace file '" + s.replay + "'");
    if (!s.replay.empty() && !s.time_regex.empty())
      throw po::error("--time-regex reads a program's output: not with --replay");
    if (!o.dump.empty() && o.matrices.empty()) throw po::error("--dump selects a dump of --matrices");
    s.timeout = std::chrono::seconds(timeout);
    if (s.smpirun.find('/') != std::string::npos) s.smpirun = fs::absolute(s.smpirun).string();  // runs elsewhere
    s.trace_traffic = !o.no_traffic;
    s.settings = harness::default_smpi_settings();
    for (const auto& kv : o.smpi) s.settings.push_back(harness::parse_smpi_setting(kv));
    s.argv = command;
    if (!command.empty()) s.argv[0] = resolve_program(command[0]);
    s.workload = !command.empty() && fs::path(s.argv[0]).filename() == "mpimon-workload-smpi";
    const std::string label =
        !o.name.empty() ? o.name : fs::path(command.empty() ? s.replay : s.argv[0]).filename().string();
    std::optional<TreeTopology> tree;
    std::string platform_text;
    if (!o.topology.empty()) {
      tree = linked_topology(o);
      std::ostringstream xml;
      write_simgrid_platform(*tree, parse_simulated_network(o.network, "--network"), xml);
      platform_text = xml.str();
    }
    const std::string stem = (fs::path(o.output).parent_path() / fs::path(o.output).stem()).string();
    if (!o.traffic_out.empty() && o.no_traffic)
      throw po::error("--traffic-out needs the traffic: not with --no-traffic");
    for (const auto& path : {o.output, o.json, o.traffic_out, stem + ".platform.xml"}) {
      if (!path.empty()) check_output_path(path);
    }

    // Every mapping, then the platform (SimGrid reads it), before anything runs.
    std::vector<harness::SimulatedOutcome> outcomes;
    std::vector<std::string> used;
    for (std::size_t i = 0; i < o.rankfiles.size(); ++i) {
      const auto entries = read_rankfile(o.rankfiles[i], o.np);
      harness::SimulatedOutcome out;
      out.arm = {mapping_arm(i),
                 fs::path(o.rankfiles[i]).stem().string(),
                 fs::absolute(o.rankfiles[i]).string(),
                 read_text(o.rankfiles[i]),
                 {}};
      for (const auto& e : entries) out.arm.hosts.push_back(e.host);
      used.insert(used.end(), out.arm.hosts.begin(), out.arm.hosts.end());
      if (tree) out.mapping = rankfile_mapping(entries, *tree, default_hosts(tree->nodes()), o.rankfiles[i]);
      outcomes.push_back(std::move(out));
    }
    TemporaryFile candidate("platform");
    if (tree) write_file_atomically(candidate.path(), [&](std::ostream& out) { out << platform_text; });
    const std::string reader = harness::own_file("mpimon-simgrid-platform");
    const auto info = harness::read_platform(reader, tree ? candidate.path() : o.platform, used);
    if (!tree) {
      platform_text = read_text(o.platform);
      tree = platform_topology(info.properties);
      for (auto& out : outcomes) {
        if (tree)
          out.mapping = rankfile_mapping(read_rankfile(out.arm.rankfile, o.np), *tree, default_hosts(tree->nodes()),
                                         out.arm.rankfile);
      }
    }
    std::optional<SparseMatrix> recorded;
    if (!o.matrices.empty()) {
      MatrixFile file(o.matrices);
      recorded = sum_classes(file, o.dump.empty() ? file.default_dump() : o.dump,
                             {TrafficClass::external, TrafficClass::internal}, Metric::bytes);
      if (recorded->rows != o.np) {
        throw po::error("--matrices holds " + std::to_string(recorded->rows) + " ranks, --np is " +
                        std::to_string(o.np));
      }
    }
    s.platform = o.topology.empty() ? fs::absolute(o.platform).string() : stem + ".platform.xml";
    if (tree && !o.topology.empty()) fs::copy_file(candidate.path(), s.platform, fs::copy_options::overwrite_existing);

    std::vector<harness::Simulation> runs;
    for (const auto& out : outcomes) {
      runs.push_back(s);
      runs.back().hosts = out.arm.hosts;
      write_file_atomically(stem + "." + out.arm.arm + ".hosts", [&](std::ostream& f) {
        for (const auto& h : out.arm.hosts) f << h << '\n';
      });
    }
    const harness::SimulationProgress progress{
        [&](std::size_t i) {
          std::fprintf(stderr, "%s: simulating %s (%s) ...\n", name.c_str(), outcomes[i].arm.arm.c_str(),
                       outcomes[i].arm.rankfile.c_str());
        },
        [&](std::size_t i, const harness::SimulationResult& r) {
          std::fprintf(stderr, "%s: %s: %s, %.6g s simulated, %.1f s here\n", name.c_str(), outcomes[i].arm.arm.c_str(),
                       r.status.c_str(), r.seconds, r.wall_seconds);
        }};
    auto results = harness::run_simulations(runs, o.jobs, progress);
    for (std::size_t i = 0; i < outcomes.size(); ++i) outcomes[i].run = std::move(results[i]);
    return report_simulations(outcomes, {s, label, o.output, o.json, o.matrices, o.traffic_out, o.np, tree, recorded,
                                         info, platform_text, o.topology.empty() ? o.platform : s.platform, o.jobs});
  });
}

}  // namespace mpimon::cli
