// `mpimon place`'s options: from strings to the topology and the request (docs/placement.md).
#include "place_options.hpp"

#include <cstdio>
#include <optional>

#include "mpimon/base/error.hpp"
#include "mpimon/harness/cluster.hpp"

#include "mpimon/base/error.hpp"
#include "mpimon/base/units.hpp"
#include "mpimon/harness/cluster.hpp"
#include "mpimon/placement/time_model.hpp"

#include "mpimon/placement/simgrid_platform.hpp"

namespace mpimon::cli {

namespace {

// "0,8-9" -> 0 8 9
std::vector<std::uint64_t> leaf_list(const std::string& text) {
  std::vector<std::uint64_t> leaves;
  for (const auto& item : split_list(text, "exclude-leaves")) {
    std::uint64_t low = 0, high = 0;
    char dash = 0, extra = 0;
    const int read = std::sscanf(item.c_str(), "%lu%c%lu%c", &low, &dash, &high, &extra);
    if (!(read == 1 || (read == 3 && dash == '-' && high >= low)) || item[0] == '-' || item[0] == '+') {
      throw po::error("--exclude-leaves: '" + item + "' is not a leaf index or a range A-B");
    }
    for (std::uint64_t l = low; l <= (read == 3 ? high : low); ++l) leaves.push_back(l);
  }
  return leaves;
}

// The links of --link, --links, or the emulated cluster of --hostfile (its rate between the nodes;
// the latency it does not know), and where they came from.
std::vector<LinkSpec> links_of(const PlaceOptions& o, const TreeTopology& topo, std::string& from) {
  if (!o.link.empty() && !o.links_file.empty()) throw po::error("--link and --links exclude each other");
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
  } else if (!o.hostfile.empty() && topo.node_levels > 0) {
    const auto cluster = harness::cluster_of_hostfile(o.hostfile);
    if (cluster && !cluster->rate.empty() && cluster->rate != "none") {
      links.resize(topo.node_levels);
      links.back().bits_per_second = static_cast<double>(parse_rate(cluster->rate, "the cluster's --rate"));
      from = "mpimon cluster '" + cluster->name + "' (its links' rate between the nodes, latency not known: 0)";
    }
  }
  return links;
}

}  // namespace

namespace {

// The modelled machine: --topology, or that of the mpimon cluster --hostfile names; both must agree.
TreeTopology given_topology(const PlaceOptions& o) {
  const auto cluster = o.hostfile.empty() ? std::nullopt : harness::cluster_of_hostfile(o.hostfile);
  if (!cluster) {
    if (o.topology.empty()) {
      throw po::error(
          "--topology is required (it comes from the hostfile only with the --hostfile of an mpimon cluster)");
    }
    return parse_topology(o.topology);
  }
  TreeTopology own = parse_topology(std::to_string(cluster->nodes) + "@" + cluster->shape.xml);
  const MachineShape own_shape = machine_shape(own);
  if (o.topology.empty()) {
    std::fprintf(stderr, "mpimon place: topology %s of cluster %s (--hostfile %s)\n", own_shape.text().c_str(),
                 cluster->name.c_str(), o.hostfile.c_str());
    return own;
  }
  TreeTopology topo = parse_topology(o.topology);
  const MachineShape shape = machine_shape(topo);
  if (shape.sockets != own_shape.sockets || shape.cores != own_shape.cores || shape.nodes > own_shape.nodes) {
    throw Error(Error::Kind::usage, "--topology " + o.topology + " (" + shape.text() + ") contradicts cluster " +
                                        cluster->name + " of --hostfile " + o.hostfile + " (" + own_shape.text() +
                                        "): leave --topology out to take the cluster's");
  }
  return topo;
}

}  // namespace

TreeTopology topology_of(PlaceOptions& o) {
  TreeTopology topo = given_topology(o);
  if (const auto links = links_of(o, topo, o.links_from); !links.empty()) topo = with_links(std::move(topo), links);
  if (!o.exclude_leaves.empty()) topo = with_excluded(std::move(topo), leaf_list(o.exclude_leaves));
  return with_slots(std::move(topo), o.slots_per_leaf);
}

PlacementRequest request_of(const PlaceOptions& o, const po::variables_map& vm) {
  PlacementRequest request;
  request.seed = o.seed;
  if (o.time_limit < 0) throw po::error("--time-limit must be positive (seconds)");
  request.time_limit = o.time_limit;
  request.objective = parse_objective(o.objective);
  if (vm.count("method") && o.methods != "all") {
    request.methods = split_list(o.methods, "method");
    request.methods_explicit = true;
    for (const auto& m : request.methods) {
      if (find_placement_method(m) == nullptr)
        throw po::error("unknown method '" + m + "' in --method (" + placement_method_names() + ", all)");
    }
  }
  // --start-mapping feeds the methods that need it and those that start from seeds (the table).
  auto reads_start = [](const PlacementMethod& m) { return m.needs_start_mapping || m.starts_from_seeds; };
  bool uses_start = !request.methods_explicit, needs_start = false;
  for (const auto& m : request.methods) {
    const PlacementMethod* method = find_placement_method(m);
    uses_start = uses_start || reads_start(*method);
    needs_start = needs_start || method->needs_start_mapping;
  }
  if (needs_start && o.start_mapping.empty()) throw po::error("--method " + o.methods + " needs --start-mapping FILE");
  if (!o.start_mapping.empty() && !uses_start) {
    std::string readers;
    for (const auto& m : placement_methods()) {
      if (reads_start(m)) readers += (readers.empty() ? "" : ", ") + std::string(m.name);
    }
    throw po::error("--start-mapping is read only by the methods " + readers + ": --method lists none of them");
  }
  return request;
}

void add_link_options(po::options_description& options, PlaceOptions& o) {
  options.add_options()("link", po::value(&o.link)->composing(),
                        "RATE,LATENCY of the links below one level, e.g. 100mbit,50us; once per level, top first "
                        "(levels left out are free)")("links", po::value(&o.links_file),
                                                      "the links file mpimon probe writes (one link per level)");
}

std::string method_help() {
  std::string text = "Methods:\n";
  for (const auto& m : placement_methods()) text += "  " + std::string(m.name) + ": " + m.summary + "\n";
  return text;
}

std::vector<std::string> hosts_of(const PlaceOptions& o, std::uint64_t nodes) {
  if (!o.hosts.empty()) return split_list(o.hosts, "hosts");
  if (!o.hostfile.empty()) return read_hostfile(o.hostfile);
  return default_hosts(nodes);
}

}  // namespace mpimon::cli
