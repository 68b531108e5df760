// `mpimon place`'s JSON report (format mpimon-placement, docs/placement.md).
#include <iomanip>
#include <nlohmann/json.hpp>
#include <sstream>

#include "mpimon/base/json.hpp"
#include "mpimon/placement/placement.hpp"
#include "mpimon/placement/time_model.hpp"

namespace mpimon {

namespace {

using Json = nlohmann::ordered_json;

// The time model's fields of the report (null where the topology has no links).
Json time_fields(const std::vector<MethodResult>& rows, const TreeTopology& topo, Objective objective) {
  const bool timed = has_links(topo);
  Json links = Json::array();
  for (std::size_t l = 0; l < topo.links.size(); ++l) {
    links.push_back({{"level", l},
                     {"link", format_link(topo.links[l])},
                     {"bits_per_second", topo.links[l].bits_per_second},
                     {"latency_seconds", topo.links[l].latency_seconds}});
  }
  return {{"objective", objective_name(objective)},
          {"links", links},
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
  fields["predicted_vs_packed"] = r.time_vs_packed ? Json(*r.time_vs_packed) : Json();
  fields["time_vs_bound_percent"] =
      r.time_bound_seconds > 0 ? Json(100.0 * (r.predicted_seconds() / r.time_bound_seconds - 1)) : Json();
  fields["busiest_link"] = {{"level", p.busiest_level},
                            {"subtree", p.busiest_subtree},
                            {"direction", p.busiest_up ? "out" : "in"},
                            {"bytes", p.busiest_bytes}};
  fields["latency_rank"] = p.latency_rank;
  return fields;
}

// `"key": value` pairs of a JSON object, each preceded by ", " (to continue an object being written).
void append_fields(std::ostream& out, const Json& fields) {
  for (const auto& [key, value] : fields.items()) out << ", \"" << key << "\": " << value.dump();
}

}  // namespace

void write_placement_json(std::ostream& out, const std::vector<MethodResult>& rows, const TreeTopology& topo,
                          const PlacementContext& o, const std::string& chosen, Objective objective) {
  auto optional_number = [](const std::optional<double>& v) {
    if (!v) return std::string("null");
    std::ostringstream s;
    s << std::setprecision(10) << *v;
    return s.str();
  };
  out << "{\n  \"format\": \"mpimon-placement\",\n  \"file\": \"" << json_escape(o.input) << "\",\n  \"dump\": \""
      << json_escape(o.dump) << "\",\n  \"ranks\": " << o.ranks << ",\n  \"topology\": {\"tleaf\": \"" << topo.tleaf()
      << "\", \"source\": \"" << json_escape(topo.source) << "\", \"leaves\": " << topo.leaves()
      << ", \"nodes\": " << topo.nodes() << ", \"node_levels\": " << topo.node_levels
      << ", \"socket_levels\": " << topo.socket_levels << "},\n  \"model\": \"" << json_escape(kPlacementModel)
      << "\",\n  \"classes\": \"" << json_escape(o.classes) << "\",\n  \"evaluate_classes\": \""
      << json_escape(o.evaluate_classes) << "\",\n  \"metric\": \"" << o.metric << "\",\n  \"seed\": " << o.seed
      << ",\n  \"chosen\": \"" << chosen
      << "\",\n  \"lower_bound\": " << to_decimal(rows.empty() ? 0 : rows.front().lower_bound);
  const Json time = time_fields(rows, topo, objective);
  for (const auto& [key, value] : time.items()) out << ",\n  \"" << key << "\": " << value.dump();
  out << ",\n  \"methods\": [";
  for (std::size_t i = 0; i < rows.size(); ++i) {
    const auto& r = rows[i];
    out << (i ? ",\n" : "\n") << "    {\"method\": \"" << r.method << "\"";
    if (!r.unavailable.empty()) {
      out << ", \"unavailable\": \"" << json_escape(r.unavailable) << "\", \"seconds\": " << r.seconds
          << ", \"predicted_seconds\": null}";
      continue;
    }
    out << ", \"cost\": " << to_decimal(r.metrics.cost) << ", \"computed_cost\": " << to_decimal(r.computed_cost);
    if (r.draws > 1) {
      out << std::setprecision(17) << ", \"draws\": " << r.draws << ", \"cost_mean\": " << r.cost_mean
          << ", \"cost_sd\": " << r.cost_sd << ", \"cost_min\": " << r.cost_min << ", \"cost_max\": " << r.cost_max;
    }
    const auto vs_bound = r.lower_bound > 0
                              ? std::optional<double>(100.0 * (r.cost() / static_cast<double>(r.lower_bound) - 1))
                              : std::nullopt;
    out << ", \"vs_bound_percent\": " << optional_number(vs_bound) << ", \"seconds\": " << std::setprecision(4)
        << r.seconds;
    out << ", \"gain_vs_packed_percent\": " << optional_number(r.gain_vs_packed)
        << ", \"gain_vs_random_percent\": " << optional_number(r.gain_vs_random) << ", \"crossing\": [";
    for (std::size_t l = 0; l < r.metrics.crossing.size(); ++l)
      out << (l ? ", " : "") << to_decimal(r.metrics.crossing[l]);
    out << "], \"busiest_node_off_node\": " << to_decimal(r.metrics.busiest_node_off_node);
    append_fields(out, method_time_fields(r));
    if (!r.started_from.empty()) out << ", \"started_from\": \"" << r.started_from << "\"";
    if (!r.note.empty()) out << ", \"note\": \"" << json_escape(r.note) << "\"";
    out << ", \"repaired_ranks\": [";
    for (std::size_t k = 0; k < r.repaired_ranks.size(); ++k) out << (k ? ", " : "") << r.repaired_ranks[k];
    out << "]";
    out << ", \"mapping\": [";
    for (std::size_t k = 0; k < r.mapping.size(); ++k) out << (k ? ", " : "") << r.mapping[k];
    out << "]}";
  }
  out << "\n  ]\n}\n";
}

}  // namespace mpimon
