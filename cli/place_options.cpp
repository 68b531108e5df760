// `mpimon place`'s options: the machine's (place, report, probe) handed to the placement library.
#include "place_options.hpp"

#include <cstdio>

#include "mpimon/harness/cluster.hpp"
#include "mpimon/placement/mapping_files.hpp"

namespace mpimon::cli {

PlacementMachine machine_of(const PlaceOptions& o) {
  MachineOptions machine{o.topology, std::nullopt, o.link, o.links_file, o.exclude_leaves, o.slots_per_leaf};
  if (const auto cluster = o.hostfile.empty() ? std::nullopt : harness::cluster_of_hostfile(o.hostfile)) {
    machine.cluster = ClusterMachine{cluster->name, o.hostfile, cluster->nodes, cluster->shape.xml, cluster->rate};
  }
  PlacementMachine placed = placement_machine(machine);
  if (!placed.note.empty()) std::fprintf(stderr, "mpimon place: %s\n", placed.note.c_str());
  return placed;
}

std::vector<std::string> hosts_of(const PlaceOptions& o, std::uint64_t nodes) {
  if (!o.hosts.empty()) return split_list(o.hosts, "hosts");
  if (!o.hostfile.empty()) return read_hostfile(o.hostfile);
  return default_hosts(nodes);
}

void add_link_options(po::options_description& options, PlaceOptions& o) {
  options.add_options()("link", po::value(&o.link)->composing(),
                        "RATE,LATENCY of the links below one level, e.g. 100mbit,50us; once per level, top first "
                        "(levels left out are free)")("links", po::value(&o.links_file),
                                                      "the links file mpimon probe writes (one link per level)");
}

}  // namespace mpimon::cli
