#pragma once
// `mpimon place`'s options (also read by report and probe, which take the machine as place does):
// the strings as given, and what the placement library makes of them.
#include <cstdint>
#include <string>
#include <vector>

#include "cli_support.hpp"
#include "mpimon/placement/machine.hpp"

namespace mpimon::cli {

struct PlaceOptions {
  std::string input, topology, methods, dump, classes, evaluate_classes, metric, mapping_out, rankfile, hosts, hostfile,
      json, slurm_hostfile;
  std::uint64_t seed = 1;
  double time_limit = 0;
  std::uint32_t slots_per_leaf = 1;
  std::string exclude_leaves, start_mapping;
  std::vector<std::string> link;  ///< --link RATE,LATENCY per level, top first
  std::string links_file, objective;
};

/// The machine of --topology (or the mpimon cluster of --hostfile) with its links, --exclude-leaves
/// and --slots-per-leaf (placement_machine); says on stderr when the cluster gave the tree.
PlacementMachine machine_of(const PlaceOptions& o);
/// The rankfile's hosts: --hosts, the hostfile's, or node0, node1, ...
std::vector<std::string> hosts_of(const PlaceOptions& o, std::uint64_t nodes);
/// --link and --links, the links' rates and latencies of the machine placed on (place, report).
void add_link_options(po::options_description& options, PlaceOptions& o);

}  // namespace mpimon::cli
