// `mpimon probe`: the links of a machine measured for the placement time model (docs/placement.md,
// "Measuring the links"): for each level of the tree, two ranks on two leaves whose lowest common
// level it is, a ping-pong and a stream between them (harness/link_probe.hpp); the per-link rate
// and latency the time model reads (`mpimon place --links FILE`).
#include <cstdio>
#include <fstream>
#include <iomanip>
#include <iostream>
#include <sstream>

#include "cli_support.hpp"
#include "commands.hpp"
#include "mpimon/base/scratch.hpp"
#include "mpimon/harness/link_probe.hpp"
#include "mpimon/placement/links.hpp"
#include "mpimon/placement/mapping_files.hpp"
#include "place_options.hpp"

namespace mpimon::cli {

namespace {

// One level's pair measured end to end.
struct Measured {
  std::uint64_t a = 0, b = 0;  // leaves
  harness::LinkProbeResult result;
};

// From end-to-end measures to the links below each level: a pair whose lowest common level is c
// crosses two links of each level c..L-1, so the latency of one link of level c is half what the
// pair at c measured beyond the pair at c + 1 (never below 0), and the rate of level c is what
// the pair at c streams (its path's slowest link).
LinksFile links_of(const TreeTopology& topo, const std::vector<Measured>& m) {
  LinksFile file;
  file.topology = topo.tleaf();
  const std::uint32_t levels = topo.levels();
  file.links.resize(levels);
  for (std::uint32_t c = levels; c-- > 0;) {
    const double deeper = c + 1 < levels ? m[c + 1].result.latency_seconds : 0;
    file.links[c].latency_seconds = std::max(0.0, (m[c].result.latency_seconds - deeper) / 2);
    file.links[c].bits_per_second = 8 * m[c].result.bytes_per_second;
  }
  for (std::uint32_t c = 0; c < levels; ++c) {
    std::ostringstream how;
    how << "ranks on leaves " << m[c].a << " and " << m[c].b << " (" << m[c].result.hosts.at(0) << ", "
        << m[c].result.hosts.at(1) << "): one-way latency " << std::setprecision(4) << m[c].result.latency_seconds * 1e6
        << " us (half the median round trip), stream " << m[c].result.bytes_per_second * 8 / 1e6
        << " Mbit/s (median round)";
    file.notes.push_back(how.str());
  }
  return file;
}

}  // namespace

int probe_command(const std::string& name, const std::vector<std::string>& args) {
  Command cmd{name,
              "--topology TOPO -o LINKS.json [--hosts LIST | --hostfile FILE] [--launcher CMD] [--mca KEY=VALUE]...\n"
              "       [--repetitions N] [--size BYTES] [--messages K] [--rounds R]",
              "Measures the links of the machine the tree TOPO describes (as mpimon place reads it), for the time\n"
              "model of mpimon place: for each level, two ranks placed by a rankfile on two leaves whose lowest\n"
              "common level it is (leaf 0 and the first leaf of the next subtree), a ping-pong of small messages\n"
              "(latency) and a stream of large ones (bandwidth), monitoring off. Writes LINKS.json (format\n"
              "mpimon-links: the rate and latency of one link below each level), read by mpimon place --links\n"
              "(docs/placement.md). On an mpimon cluster, give it the cluster's launcher and hostfile."};
  return run_command(cmd, [&] {
    PlaceOptions o;
    harness::LinkProbeSettings s;
    std::string output;
    po::options_description options("Options");
    options.add_options()("topology", po::value(&o.topology)->required(), "the machine's tree (as mpimon place)")(
        "output,o", po::value(&output)->required(), "the links file to write")(
        "hosts", po::value(&o.hosts), "comma-separated host names of the nodes (default node0, node1, ...)")(
        "hostfile", po::value(&o.hostfile), "take the hosts from this hostfile")(
        "launcher", po::value(&s.launcher)->default_value("mpirun"), "Open MPI's mpirun (or a cluster's launcher)")(
        "mca", po::value(&s.mca)->composing(), "KEY=VALUE added to every launch (repeatable)")(
        "repetitions", po::value(&s.repetitions)->default_value(1000), "timed ping-pongs per pair")(
        "size", po::value(&s.size)->default_value(1 << 20), "bytes of one message of the stream")(
        "messages", po::value(&s.messages)->default_value(16), "messages of one round of the stream")(
        "rounds", po::value(&s.rounds)->default_value(5), "timed rounds of the stream");
    po::variables_map vm;
    if (!parse_options(cmd, args, options, {}, vm)) return kExitOk;
    if (!o.hosts.empty() && !o.hostfile.empty()) throw po::error("--hosts and --hostfile exclude each other");
    harness::check_link_probe_settings(s);
    o.slots_per_leaf = 1;
    const TreeTopology topo = machine_of(o).topo;
    const auto hosts = hosts_of(o, topo.nodes());
    check_output_path(output);

    std::vector<Measured> measured;
    std::uint64_t below = topo.leaves();
    for (std::uint32_t level = 0; level < topo.levels(); ++level) {
      below /= topo.arity[level];
      Measured m{0, below, {}};
      TemporaryFile rankfile("probe-rankfile");
      {
        std::ofstream out(rankfile.path());
        write_rankfile({m.a, m.b}, topo, hosts, out);
      }
      std::fprintf(stderr, "%s: level %u: ranks on leaves %lu and %lu ...\n", name.c_str(), level,
                   static_cast<unsigned long>(m.a), static_cast<unsigned long>(m.b));
      m.result = harness::probe_link(s, rankfile.path());
      std::fprintf(stderr, "%s:   %s\n", name.c_str(), m.result.command.c_str());
      measured.push_back(std::move(m));
    }
    LinksFile file = links_of(topo, measured);
    std::ostringstream settings;
    settings << "ping-pong of 8 B x " << s.repetitions << ", stream of " << s.messages << " x " << s.size << " B x "
             << s.rounds << " rounds, monitoring off";
    for (auto& note : file.notes) note += "; " + settings.str();
    write_file_atomically(output, [&](std::ostream& out) { write_links_file(out, file); });
    std::printf("Links of '%s' measured pair by pair (mpimon place --links %s):\n", topo.tleaf().c_str(),
                output.c_str());
    for (std::uint32_t level = 0; level < topo.levels(); ++level) {
      const auto& r = measured[level].result;
      std::printf("  below level %u: %-22s  pair on %s and %s: %.4g us one way, %.4g Mbit/s\n", level,
                  format_link(file.links[level]).c_str(), r.hosts.at(0).c_str(), r.hosts.at(1).c_str(),
                  r.latency_seconds * 1e6, r.bytes_per_second * 8 / 1e6);
    }
    return kExitOk;
  });
}

}  // namespace mpimon::cli
