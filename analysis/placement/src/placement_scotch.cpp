// Scotch's mapping of the communication graph onto the tree-leaf architecture (SCOTCH_graphMap).
#include <algorithm>
#include <cstdio>

#include "mpimon/base/error.hpp"
#include "mpimon/matrices/export.hpp"
#include "mpimon/placement/mappers.hpp"
#include "placement_internal.hpp"

#ifdef MPIMON_HAVE_SCOTCH
#include <scotch.h>
#endif

namespace mpimon {

#ifdef MPIMON_HAVE_SCOTCH

namespace {

Mapping scotch_in_process(const AffinityGraph& graph, const TreeTopology& topo) {
  const std::uint32_t n = graph.order;
  if (n > topo.leaves()) {
    raise_error(Error::Kind::input, "--topology",
                std::to_string(n) + " ranks do not fit on " + std::to_string(topo.leaves()) + " leaves");
  }
  // SCOTCH_Num is 32-bit in Debian's libscotch: the weights `mpimon export scotch` gives Scotch's tools.
  uint128 arc_total = 0;
  for (const auto& e : graph.edges) arc_total += 2 * static_cast<uint128>(e.weight);
  const double factor = int32_tools_factor(arc_total);
  const auto adj = graph.adjacency();
  std::vector<SCOTCH_Num> verttab(n + 1, 0), edgetab, edlotab;
  for (std::uint32_t v = 0; v < n; ++v) {
    for (const auto& [peer, w] : adj[v]) {
      edgetab.push_back(static_cast<SCOTCH_Num>(peer));
      edlotab.push_back(static_cast<SCOTCH_Num>(int32_tools_weight(w, factor)));
    }
    verttab[v + 1] = static_cast<SCOTCH_Num>(edgetab.size());
  }
  // The same mapping on every run: Scotch 7's threads make its results depend on their timing
  // unless its context asks for determinism (the global random reset alone is not enough).
  SCOTCH_randomReset();
  SCOTCH_Context context;
  SCOTCH_Graph g, bound;
  SCOTCH_Arch arch;
  SCOTCH_Strat strat;
  SCOTCH_contextInit(&context);
  SCOTCH_graphInit(&g);
  SCOTCH_graphInit(&bound);
  SCOTCH_archInit(&arch);
  SCOTCH_stratInit(&strat);
  std::vector<SCOTCH_Num> sizes(topo.arity.begin(), topo.arity.end());
  std::vector<SCOTCH_Num> links(topo.link_cost.begin(), topo.link_cost.end());
  std::vector<SCOTCH_Num> parts(n, 0);
  int status = SCOTCH_graphBuild(&g, 0, static_cast<SCOTCH_Num>(n), verttab.data(), nullptr, nullptr, nullptr,
                                 static_cast<SCOTCH_Num>(edgetab.size()), edgetab.data(), edlotab.data());
  if (status == 0) status = SCOTCH_archTleaf(&arch, static_cast<SCOTCH_Num>(topo.levels()), sizes.data(), links.data());
  if (status == 0)
    status = SCOTCH_stratGraphMapBuild(&strat, SCOTCH_STRATQUALITY, static_cast<SCOTCH_Num>(topo.leaves()), 0.0);
  if (status == 0) status = SCOTCH_contextOptionSetNum(&context, SCOTCH_OPTIONNUMDETERMINISTIC, 1);
  if (status == 0) status = SCOTCH_contextRandomClone(&context);
  if (status == 0) status = SCOTCH_contextBindGraph(&context, &g, &bound);
  if (status == 0 && n > 0) status = SCOTCH_graphMap(&bound, &arch, &strat, parts.data());
  SCOTCH_stratExit(&strat);
  SCOTCH_archExit(&arch);
  SCOTCH_graphExit(&bound);
  SCOTCH_graphExit(&g);
  SCOTCH_contextExit(&context);
  if (status != 0)
    raise_error(Error::Kind::system, "Scotch", "SCOTCH_graphMap failed (status " + std::to_string(status) + ")");
  return {parts.begin(), parts.end()};
}

}  // namespace

std::string placement_detail::scotch_unavailable() { return ""; }

Mapping scotch_mapping(const AffinityGraph& graph, const TreeTopology& topo, double seconds, bool* timed_out,
                       std::vector<std::uint32_t>* repaired) {
  // Scotch cannot be interrupted: it runs in a child, stopped when its time is over.
  bool late = false;
  Mapping mapping = placement_detail::compute_in_child(
      "scotch", [&] { return scotch_in_process(graph, topo); }, graph.order, seconds, late);
  if (timed_out != nullptr) *timed_out = late;
  if (late) return {};
  auto moved = repair_mapping(graph, topo, mapping);  // Scotch balances, it does not inject
  if (repaired != nullptr) *repaired = std::move(moved);
  return mapping;
}

#else

std::string placement_detail::scotch_unavailable() {
  return "this mpimon was built without Scotch (Debian: libscotch-dev)";
}

Mapping scotch_mapping(const AffinityGraph&, const TreeTopology&, double, bool*, std::vector<std::uint32_t>*) {
  raise_error(Error::Kind::system, "scotch", "this mpimon was built without Scotch (Debian: libscotch-dev)");
}

#endif

}  // namespace mpimon
