// A placement tree as a SimGrid platform, and the tree read back from one
// (analysis/placement/include/mpimon/placement/simgrid_platform.hpp).

#include "mpimon/placement/simgrid_platform.hpp"

#include <algorithm>
#include <limits>
#include <sstream>

#include "mpimon/base/error.hpp"
#include "mpimon/base/xml.hpp"

namespace mpimon {

namespace {

/// A number as SimGrid reads it, in plain units (bytes per second, seconds, flops).
std::string simgrid_number(double value) {
  std::ostringstream s;
  s.precision(15);
  s << value;
  return s.str();
}
std::string simgrid_rate(double bits_per_second) { return simgrid_number(bits_per_second / 8) + "Bps"; }
std::string simgrid_time(double seconds) { return simgrid_number(seconds) + "s"; }

/// SimGrid's FAT_TREE parameters for the levels above the nodes, bottom up: each switch has as many
/// links up as down (full bisection), one link per pair.
std::string fat_tree_parameters(const TreeTopology& topo) {
  std::string down, up, parallel;
  for (std::uint32_t i = 0; i < topo.node_levels; ++i) {
    const std::uint32_t level = topo.node_levels - 1 - i;  // bottom up
    const std::string sep = i == 0 ? "" : ",";
    down += sep + std::to_string(topo.arity[level]);
    up += sep + (i == 0 ? std::string("1") : std::to_string(topo.arity[level + 1]));
    parallel += sep + "1";
  }
  return std::to_string(topo.node_levels) + ";" + down + ";" + up + ";" + parallel;
}

void check_links(const TreeTopology& topo, SimulatedNetwork network) {
  if (topo.links.size() != topo.levels()) {
    throw Error(Error::Kind::usage, "--topology " + topo.source +
                                        ": the platform needs a link rate and latency for each of its " +
                                        std::to_string(topo.levels()) + " levels");
  }
  for (std::uint32_t l = 0; l < topo.levels(); ++l) {
    if (!(topo.links[l].bits_per_second > 0)) {
      throw Error(Error::Kind::usage,
                  "--topology " + topo.source + ": level " + std::to_string(l) + " has no link rate for the platform");
    }
  }
  if (network != SimulatedNetwork::fat_tree) return;
  for (std::uint32_t l = 1; l < topo.node_levels; ++l) {
    const LinkSpec& a = topo.links[l];
    const LinkSpec& b = topo.links[0];
    if (a.bits_per_second != b.bits_per_second || a.latency_seconds != b.latency_seconds) {
      throw Error(Error::Kind::usage, "--topology " + topo.source +
                                          ": a fat tree has one link rate and latency on every level above the "
                                          "nodes (SimGrid's FAT_TREE); levels 0 and " +
                                          std::to_string(l) + " differ");
    }
  }
}

}  // namespace

SimulatedNetwork parse_simulated_network(const std::string& text, const std::string& option) {
  if (text == "fat-tree") return SimulatedNetwork::fat_tree;
  if (text == "flat") return SimulatedNetwork::flat;
  throw Error(Error::Kind::usage, option + " takes fat-tree or flat, not '" + text + "'");
}

const char* simulated_network_name(SimulatedNetwork network) {
  return network == SimulatedNetwork::fat_tree ? "fat-tree" : "flat";
}

void write_simgrid_platform(const TreeTopology& topo, SimulatedNetwork network, std::ostream& out) {
  check_links(topo, network);
  if (topo.slots_per_core != 1 || !topo.excluded.empty()) {
    throw Error(Error::Kind::usage,
                "--topology " + topo.source + ": a platform is written from a tree without slots or exclusions");
  }
  const std::uint64_t nodes = topo.nodes();
  // The node's own levels as one loopback link: the slowest of them, crossed twice at worst.
  double rate = std::numeric_limits<double>::infinity(), latency = 0;
  for (std::uint32_t l = topo.node_levels; l < topo.levels(); ++l) {
    rate = std::min(rate, topo.links[l].bits_per_second);
    latency += 2 * topo.links[l].latency_seconds;
  }
  const LinkSpec network_link = topo.node_levels > 0 ? topo.links[topo.node_levels - 1] : LinkSpec{rate, latency};
  if (topo.node_levels == topo.levels()) rate = network_link.bits_per_second;  // one core per node
  std::string links_text;
  for (std::uint32_t l = 0; l < topo.levels(); ++l) {
    links_text += (l ? ", " : "") + std::string("level ") + std::to_string(l) + " " +
                  simgrid_rate(topo.links[l].bits_per_second) + " " + simgrid_time(topo.links[l].latency_seconds);
  }
  out << "<?xml version='1.0'?>\n"
      << "<!DOCTYPE platform SYSTEM \"https://simgrid.org/simgrid.dtd\">\n"
      << "<!-- Written by mpimon simulate from --topology " << xml_escape(topo.source) << " (" << topo.tleaf()
      << "): " << nodes << " nodes (hosts node0..node" << nodes - 1 << ") of " << topo.leaves_per_node()
      << " cores, network " << simulated_network_name(network)
      << ". Rerun with: smpirun -platform THIS.xml -hostfile HOSTS -np N PROGRAM (docs/simulate.md). -->\n"
      << "<platform version=\"4.1\">\n"
      << "  <zone id=\"mpimon\" routing=\"Full\">\n"
      << "    <prop id=\"mpimon_tleaf\" value=\"" << topo.tleaf() << "\"/>\n"
      << "    <prop id=\"mpimon_node_levels\" value=\"" << topo.node_levels << "\"/>\n"
      << "    <prop id=\"mpimon_socket_levels\" value=\"" << topo.socket_levels << "\"/>\n"
      << "    <prop id=\"mpimon_topology\" value=\"" << xml_escape(topo.source) << "\"/>\n"
      << "    <prop id=\"mpimon_links\" value=\"" << links_text << "\"/>\n"
      << "    <prop id=\"mpimon_network\" value=\"" << simulated_network_name(network) << "\"/>\n"
      << "    <cluster id=\"mpimon_nodes\" prefix=\"node\" suffix=\"\" radical=\"0-" << nodes - 1 << "\" speed=\""
      << simgrid_number(kSimulatedHostFlops) << "f\" core=\"" << topo.leaves_per_node() << "\"\n"
      << "             bw=\"" << simgrid_rate(network_link.bits_per_second) << "\" lat=\""
      << simgrid_time(network_link.latency_seconds) << "\" sharing_policy=\"SPLITDUPLEX\"\n"
      << "             loopback_bw=\"" << simgrid_rate(rate) << "\" loopback_lat=\"" << simgrid_time(latency) << "\"";
  if (network == SimulatedNetwork::fat_tree && topo.node_levels > 0) {
    out << "\n             topology=\"FAT_TREE\" topo_parameters=\"" << fat_tree_parameters(topo) << "\"";
  }
  out << "/>\n  </zone>\n</platform>\n";
}

std::optional<TreeTopology> platform_topology(const std::map<std::string, std::string>& properties) {
  const auto tleaf = properties.find("mpimon_tleaf");
  const auto nodes = properties.find("mpimon_node_levels");
  const auto sockets = properties.find("mpimon_socket_levels");
  if (tleaf == properties.end() || nodes == properties.end() || sockets == properties.end()) return std::nullopt;
  TreeTopology topo = parse_tleaf(tleaf->second, "the platform's mpimon_tleaf");
  try {
    topo.node_levels = static_cast<std::uint32_t>(std::stoul(nodes->second));
    topo.socket_levels = static_cast<std::uint32_t>(std::stoul(sockets->second));
  } catch (const std::exception&) {
    throw Error(Error::Kind::format, "the platform's mpimon_node_levels or mpimon_socket_levels is not a number");
  }
  if (topo.node_levels + topo.socket_levels > topo.levels()) {
    throw Error(Error::Kind::format, "the platform's mpimon_node_levels and mpimon_socket_levels exceed its tree");
  }
  if (const auto source = properties.find("mpimon_topology"); source != properties.end()) topo.source = source->second;
  return topo;
}

}  // namespace mpimon
