#pragma once
// The placement library's whole public API in one include (docs/placement.md), as google/benchmark's
// benchmark.h gathers its parts. Each part has its own header; include the one a file needs:
//   topology.hpp        the tree a placement maps onto (--topology, slots, exclusions, its shape)
//   machine.hpp         that tree from the options that describe the machine (a cluster, the links)
//   mapping.hpp         the traffic as a graph, a mapping, its cost and a lower bound (the cost model)
//   mappers.hpp         the mapping algorithms by family: baselines, local search, multisection,
//                       Scotch, TreeMatch
//   methods.hpp         the method table that puts each algorithm behind one interface, the objective
//   place.hpp           place(): the request, the methods run and costed, the choice, its table and JSON
//   mapping_files.hpp   the files that carry a mapping: RANK LEAF lines, rankfiles, hostfiles, Slurm
//   links.hpp           the links' rates and latencies per level: --link, mpimon probe's links file
//   time_model.hpp      the predicted communication time of a mapping
//   simgrid_platform.hpp the tree as a SimGrid platform

#include "mpimon/placement/links.hpp"
#include "mpimon/placement/machine.hpp"
#include "mpimon/placement/mappers.hpp"
#include "mpimon/placement/mapping.hpp"
#include "mpimon/placement/mapping_files.hpp"
#include "mpimon/placement/methods.hpp"
#include "mpimon/placement/place.hpp"
#include "mpimon/placement/simgrid_platform.hpp"
#include "mpimon/placement/time_model.hpp"
#include "mpimon/placement/topology.hpp"
