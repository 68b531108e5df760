#pragma once
// `mpimon place`'s options and what they turn into: the topology (slots, excluded leaves), the
// request (methods from the table, time limit), the rankfile's hosts, the methods' help.
#include <cstdint>
#include <string>
#include <vector>

#include "cli_support.hpp"
#include "mpimon/placement/placement.hpp"
#include "place_table.hpp"

namespace mpimon::cli {

// PlaceOptions: place_table.hpp.

/// The tree of --topology with --exclude-leaves and --slots-per-leaf applied, and its links from
/// --link, --links or the mpimon cluster whose hostfile --hostfile names (o.links_from says which).
TreeTopology topology_of(PlaceOptions& o);
PlacementRequest request_of(const PlaceOptions& o, const po::variables_map& vm);
std::vector<std::string> hosts_of(const PlaceOptions& o, std::uint64_t nodes);
/// --link and --links, the links' rates and latencies of the machine placed on (place, report).
void add_link_options(po::options_description& options, PlaceOptions& o);
/// "Methods:" and one line per entry of the method table.
std::string method_help();

}  // namespace mpimon::cli
