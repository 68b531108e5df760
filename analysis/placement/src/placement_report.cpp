// `mpimon place`'s JSON report (format mpimon-placement, docs/placement.md).
#include <algorithm>

#include "mpimon/json.hpp"
#include "mpimon/placement/links.hpp"
#include "mpimon/placement/place.hpp"
#include "mpimon/placement/time_model.hpp"

namespace mpimon {

namespace {

// The time model's fields of the report (null where the topology has no links).
Json time_fields(const std::vector<MethodResult>& rows, const TreeTopology& topo, Objective objective,
                 const std::string& links_source) {
  const bool timed = has_links(topo);
  Json links = Json::array();
  for (std::size_t l = 0; l < topo.links.size(); ++l) {
    links.push_back({{"level", l},
                     {"link", format_link(topo.links[l])},
                     {"bits_per_second", topo.links[l].bits_per_second},
                     {"latency_seconds", topo.links[l].latency_seconds}});
  }
  // Under objective time, the row the hop-bytes objective would have chosen among these.
  const bool any_ran =
      std::any_of(rows.begin(), rows.end(), [](const MethodResult& r) { return r.unavailable.empty(); });
  return {{"objective", objective_name(objective)},
          {"hop_bytes_choice", objective == Objective::time && any_ran ? Json(cheapest(rows).method) : Json()},
          {"links", links},
          {"links_source", timed && !links_source.empty() ? Json(links_source) : Json()},
          {"time_model", timed ? Json(kTimeModel) : Json()},
          {"time_lower_bound_seconds", timed && !rows.empty() ? Json(rows.front().time_bound_seconds) : Json()}};
}

// A method's predicted time, its parts, its busiest link and its ratios.
Json method_time_fields(const MethodResult& r) {
  if (!r.predicted) return {{"predicted_seconds", nullptr}};
  const TimePrediction& p = *r.predicted;
  Json fields = {{"predicted_seconds", r.predicted_seconds()}};
  if (r.draws > 1) fields["predicted_sd"] = r.predicted_sd;
  fields["predicted_bandwidth_seconds"] = p.bandwidth_seconds;
  fields["predicted_latency_seconds"] = p.latency_seconds;
  fields["computed_predicted_seconds"] = r.computed_seconds;
  if (r.computed_ordered_seconds) fields["computed_ordered_seconds"] = *r.computed_ordered_seconds;
  fields["predicted_vs_packed"] = json_optional(r.time_vs_packed);
  fields["time_vs_bound_percent"] =
      r.time_bound_seconds > 0 ? Json(100.0 * (r.predicted_seconds() / r.time_bound_seconds - 1)) : Json();
  fields["busiest_link"] = {{"level", p.busiest_level},
                            {"subtree", p.busiest_subtree},
                            {"direction", p.busiest_up ? "out" : "in"},
                            {"bytes", p.busiest_bytes}};
  fields["latency_rank"] = p.latency_rank;
  return fields;
}

Json method_row(const MethodResult& r) {
  Json row = {{"method", r.method}};
  if (!r.unavailable.empty()) {
    row["unavailable"] = r.unavailable;
    row["seconds"] = r.seconds;
    row["predicted_seconds"] = nullptr;
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
  row.update(method_time_fields(r));
  if (!r.started_from.empty()) row["started_from"] = r.started_from;
  if (!r.note.empty()) row["note"] = r.note;
  row["repaired_ranks"] = r.repaired_ranks;
  row["mapping"] = r.mapping;
  return row;
}

}  // namespace

void write_placement_json(std::ostream& out, const std::vector<MethodResult>& rows, const TreeTopology& topo,
                          const PlacementContext& o, const std::string& chosen, Objective objective) {
  Json methods = Json::array();
  for (const auto& r : rows) methods.push_back(method_row(r));
  Json report = {{"format", "mpimon-placement"},
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
                 {"lower_bound", json_integer(rows.empty() ? 0 : rows.front().lower_bound)}};
  report.update(time_fields(rows, topo, objective, o.links_source));
  report["methods"] = methods;
  out << json_document(report);
}

}  // namespace mpimon
