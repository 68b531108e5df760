// One node's tree from an hwloc XML file (lstopo --of xml): the levels between the machine and the
// cores that split the cores further, cores as leaves (hardware threads are not leaves).
#include <hwloc.h>

#include "mpimon/base/error.hpp"
#include "mpimon/placement/topology.hpp"

namespace mpimon {

TreeTopology parse_hwloc_xml(const std::string& path);

TreeTopology parse_hwloc_xml(const std::string& path) {
  hwloc_topology_t topology;
  if (hwloc_topology_init(&topology) != 0) raise_error(Error::Kind::system, path, "hwloc_topology_init failed");
  struct Guard {
    hwloc_topology_t t;
    ~Guard() { hwloc_topology_destroy(t); }
  } guard{topology};
  if (hwloc_topology_set_xml(topology, path.c_str()) != 0 || hwloc_topology_load(topology) != 0) {
    raise_input_error(path, 0, "hwloc cannot load this XML topology");
  }
  const int core_depth = hwloc_get_type_depth(topology, HWLOC_OBJ_CORE);
  const int package_depth = hwloc_get_type_depth(topology, HWLOC_OBJ_PACKAGE);
  if (core_depth < 0) raise_input_error(path, 0, "the topology has no Core level");
  TreeTopology topo;
  unsigned previous = 1;
  int previous_depth = 0;
  for (int depth = 1; depth <= core_depth; ++depth) {
    const unsigned count = static_cast<unsigned>(hwloc_get_nbobjs_by_depth(topology, depth));
    if (count == previous) continue;
    if (count % previous != 0) raise_input_error(path, 0, "the tree is not balanced at depth " + std::to_string(depth));
    const unsigned arity = count / previous;
    // Balanced and in logical order: object i at this depth lies below object i / arity above.
    for (unsigned i = 0; i < count; ++i) {
      hwloc_obj_t obj = hwloc_get_obj_by_depth(topology, depth, i);
      hwloc_obj_t parent =
          previous_depth == 0 ? nullptr : hwloc_get_ancestor_obj_by_depth(topology, previous_depth, obj);
      if (parent != nullptr && parent->logical_index != i / arity) {
        raise_input_error(path, 0, "the tree is not balanced at depth " + std::to_string(depth));
      }
    }
    topo.arity.push_back(arity);
    // Between packages (and above) costs kSocketLinkCost; inside a package kCoreLinkCost.
    topo.link_cost.push_back(depth <= package_depth ? kSocketLinkCost : kCoreLinkCost);
    if (depth <= package_depth) topo.socket_levels = static_cast<std::uint32_t>(topo.arity.size());
    previous = count;
    previous_depth = depth;
  }
  if (topo.arity.empty()) raise_input_error(path, 0, "the node has a single core: nothing to place");
  topo.node_levels = 0;
  return topo;
}

}  // namespace mpimon
