#pragma once
// The table `mpimon place` prints: each mapping's modelled cost and traffic per level, and in words
// which mapping is cheaper than packed and by how much.

#include <cstdint>
#include <ostream>
#include <string>
#include <vector>

#include "mpimon/placement/placement.hpp"

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
  std::string links_from;  ///< where the links came from, for the table (set by topology_of)
};

void print_table(std::ostream& out, const std::vector<MethodResult>& rows, const TreeTopology& topo,
                 const PlaceOptions& o, std::uint32_t ranks, const std::string& dump, const std::string& chosen);

/// How to launch under Slurm with the hostfile --slurm-hostfile wrote: the srun line with the one
/// map_cpu list, or each node's list when they differ.
void print_slurm_line(std::ostream& out, const SlurmPlacement& slurm, const std::string& hostfile);

}  // namespace mpimon::cli
