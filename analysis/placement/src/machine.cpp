// The machine placed on, from the options that describe it (machine.hpp).
#include "mpimon/placement/machine.hpp"

#include <cstdio>

#include "mpimon/base/error.hpp"
#include "mpimon/base/option_list.hpp"
#include "mpimon/base/units.hpp"
#include "mpimon/placement/links.hpp"

namespace mpimon {

namespace {

// "0,8-9" -> 0 8 9
std::vector<std::uint64_t> leaf_list(const std::string& text) {
  std::vector<std::uint64_t> leaves;
  for (const auto& item : split_list(text, "exclude-leaves")) {
    std::uint64_t low = 0, high = 0;
    char dash = 0, extra = 0;
    const int read = std::sscanf(item.c_str(), "%lu%c%lu%c", &low, &dash, &high, &extra);
    if (!(read == 1 || (read == 3 && dash == '-' && high >= low)) || item[0] == '-' || item[0] == '+') {
      throw Error(Error::Kind::usage, "--exclude-leaves: '" + item + "' is not a leaf index or a range A-B");
    }
    for (std::uint64_t l = low; l <= (read == 3 ? high : low); ++l) leaves.push_back(l);
  }
  return leaves;
}

// The links of --link, --links, or the cluster (its rate between the nodes; the latency it does
// not know), and where they came from.
std::vector<LinkSpec> links_of(const MachineOptions& o, const TreeTopology& topo, std::string& from) {
  if (!o.link.empty() && !o.links_file.empty())
    throw Error(Error::Kind::usage, "--link and --links exclude each other");
  std::vector<LinkSpec> links;
  if (!o.link.empty()) {
    for (const auto& text : o.link) links.push_back(parse_link(text));
    from = "--link";
  } else if (!o.links_file.empty()) {
    const LinksFile file = read_links_file(o.links_file);
    if (file.links.size() != topo.levels()) {
      throw Error(Error::Kind::usage, "--links " + o.links_file + ": " + std::to_string(file.links.size()) +
                                          " levels (measured on '" + file.topology + "'), but '" + topo.tleaf() +
                                          "' has " + std::to_string(topo.levels()));
    }
    links = file.links;
    from = o.links_file + " (measured on '" + file.topology + "')";
  } else if (o.cluster && topo.node_levels > 0 && !o.cluster->rate.empty() && o.cluster->rate != "none") {
    links.resize(topo.node_levels);
    links.back().bits_per_second = static_cast<double>(parse_rate(o.cluster->rate, "the cluster's --rate"));
    from = "mpimon cluster '" + o.cluster->name + "' (its links' rate between the nodes, latency not known: 0)";
  }
  return links;
}

// The tree of --topology, or that of the cluster; both must agree.
TreeTopology given_topology(const MachineOptions& o, std::string& note) {
  if (!o.cluster) {
    if (o.topology.empty()) {
      throw Error(Error::Kind::usage,
                  "--topology is required (it comes from the hostfile only with the --hostfile of an mpimon cluster)");
    }
    return parse_topology(o.topology);
  }
  const ClusterMachine& cluster = *o.cluster;
  TreeTopology own = parse_topology(std::to_string(cluster.nodes) + "@" + cluster.node_xml);
  const MachineShape own_shape = machine_shape(own);
  if (o.topology.empty()) {
    note = "topology " + own_shape.text() + " of cluster " + cluster.name + " (--hostfile " + cluster.hostfile + ")";
    return own;
  }
  TreeTopology topo = parse_topology(o.topology);
  const MachineShape shape = machine_shape(topo);
  if (shape.sockets != own_shape.sockets || shape.cores != own_shape.cores || shape.nodes > own_shape.nodes) {
    throw Error(Error::Kind::usage, "--topology " + o.topology + " (" + shape.text() + ") contradicts cluster " +
                                        cluster.name + " of --hostfile " + cluster.hostfile + " (" + own_shape.text() +
                                        "): leave --topology out to take the cluster's");
  }
  return topo;
}

}  // namespace

PlacementMachine placement_machine(const MachineOptions& o) {
  PlacementMachine machine;
  machine.topo = given_topology(o, machine.note);
  if (const auto links = links_of(o, machine.topo, machine.links_from); !links.empty())
    machine.topo = with_links(std::move(machine.topo), links);
  if (!o.exclude_leaves.empty()) machine.topo = with_excluded(std::move(machine.topo), leaf_list(o.exclude_leaves));
  machine.topo = with_slots(std::move(machine.topo), o.slots_per_leaf);
  return machine;
}

}  // namespace mpimon
