// `mpimon place`'s JSON report (format mpimon-placement, docs/placement.md).
#include "mpimon/json.hpp"
#include "mpimon/placement/placement.hpp"

namespace mpimon {

namespace {

Json method_row(const MethodResult& r) {
  Json row = {{"method", r.method}};
  if (!r.unavailable.empty()) {
    row["unavailable"] = r.unavailable;
    row["seconds"] = r.seconds;
    return row;
  }
  row["cost"] = json_integer(r.metrics.cost);
  row["computed_cost"] = json_integer(r.computed_cost);
  if (r.draws > 1) {
    row["draws"] = r.draws;
    row["cost_mean"] = r.cost_mean;
    row["cost_sd"] = r.cost_sd;
    row["cost_min"] = r.cost_min;
    row["cost_max"] = r.cost_max;
  }
  row["vs_bound_percent"] =
      r.lower_bound > 0 ? Json(100.0 * (r.cost() / static_cast<double>(r.lower_bound) - 1)) : Json(nullptr);
  row["seconds"] = r.seconds;
  row["gain_vs_packed_percent"] = json_optional(r.gain_vs_packed);
  row["gain_vs_random_percent"] = json_optional(r.gain_vs_random);
  Json crossing = Json::array();
  for (uint128 c : r.metrics.crossing) crossing.push_back(json_integer(c));
  row["crossing"] = crossing;
  row["busiest_node_off_node"] = json_integer(r.metrics.busiest_node_off_node);
  if (!r.started_from.empty()) row["started_from"] = r.started_from;
  if (!r.note.empty()) row["note"] = r.note;
  row["repaired_ranks"] = r.repaired_ranks;
  row["mapping"] = r.mapping;
  return row;
}

}  // namespace

void write_placement_json(std::ostream& out, const std::vector<MethodResult>& rows, const TreeTopology& topo,
                          const PlacementContext& o, const std::string& chosen) {
  Json methods = Json::array();
  for (const auto& r : rows) methods.push_back(method_row(r));
  const Json report = {{"format", "mpimon-placement"},
                       {"file", o.input},
                       {"dump", o.dump},
                       {"ranks", o.ranks},
                       {"topology",
                        {{"tleaf", topo.tleaf()},
                         {"source", topo.source},
                         {"leaves", topo.leaves()},
                         {"nodes", topo.nodes()},
                         {"node_levels", topo.node_levels},
                         {"socket_levels", topo.socket_levels}}},
                       {"model", kPlacementModel},
                       {"classes", o.classes},
                       {"evaluate_classes", o.evaluate_classes},
                       {"metric", o.metric},
                       {"seed", o.seed},
                       {"chosen", chosen},
                       {"lower_bound", json_integer(rows.empty() ? 0 : rows.front().lower_bound)},
                       {"methods", methods}};
  out << json_document(report);
}

}  // namespace mpimon
