// Where this process runs: its host name, and the core its binding lies within (hwloc), read once.
#include <hwloc.h>
#include <unistd.h>

#include <climits>
#include <cstdlib>

#include "reorder_internal.hpp"

namespace mpimon::reorder {

namespace {

ProcessPlace read_place() {
  ProcessPlace me;
  char host[HOST_NAME_MAX + 1] = "";
  gethostname(host, sizeof host - 1);
  me.host = host;
  hwloc_topology_t topology;
  if (hwloc_topology_init(&topology) != 0) return me;
  struct Guard {
    hwloc_topology_t t;
    hwloc_bitmap_t set = hwloc_bitmap_alloc();
    ~Guard() {
      hwloc_bitmap_free(set);
      hwloc_topology_destroy(t);
    }
  } guard{topology};
  hwloc_topology_set_cache_types_filter(topology, HWLOC_TYPE_FILTER_KEEP_NONE);
  // A node's XML (MPIMON_REORDER_TOPOLOGY) describes this machine: the binding is this system's.
  if (const char* xml = std::getenv("MPIMON_REORDER_TOPOLOGY"); xml && *xml) {
    if (hwloc_topology_set_xml(topology, xml) != 0) return me;
    hwloc_topology_set_flags(topology, HWLOC_TOPOLOGY_FLAG_IS_THISSYSTEM);
  }
  if (hwloc_topology_load(topology) != 0) return me;
  const int cores = hwloc_get_nbobjs_by_type(topology, HWLOC_OBJ_CORE);
  const int packages = std::max(1, hwloc_get_nbobjs_by_type(topology, HWLOC_OBJ_PACKAGE));
  if (cores <= 0) return me;
  const bool balanced = cores % packages == 0;
  me.packages = balanced ? static_cast<std::uint32_t>(packages) : 1;
  me.cores_per_package = static_cast<std::uint32_t>(balanced ? cores / packages : cores);
  if (hwloc_get_cpubind(topology, guard.set, HWLOC_CPUBIND_PROCESS) != 0 || hwloc_bitmap_iszero(guard.set)) return me;
  hwloc_obj_t covering = hwloc_get_obj_covering_cpuset(topology, guard.set);
  if (covering == nullptr) return me;
  hwloc_obj_t core =
      covering->type == HWLOC_OBJ_CORE ? covering : hwloc_get_ancestor_obj_by_type(topology, HWLOC_OBJ_CORE, covering);
  if (core == nullptr) return me;  // bound to more than one core: placed by node
  me.bound = true;
  me.core = core->logical_index % me.cores_per_package;
  me.package = core->logical_index / me.cores_per_package;
  return me;
}

}  // namespace

const ProcessPlace& local_place() {
  static const ProcessPlace me = read_place();
  return me;
}

}  // namespace mpimon::reorder
