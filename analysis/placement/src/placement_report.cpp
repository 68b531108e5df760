// `mpimon place`'s JSON report (format mpimon-placement, docs/placement.md).
#include <iomanip>
#include <sstream>

#include "mpimon/base/json.hpp"
#include "mpimon/placement/placement.hpp"

namespace mpimon {

void write_placement_json(std::ostream& out, const std::vector<MethodResult>& rows, const TreeTopology& topo,
                          const PlacementContext& o, const std::string& chosen) {
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
      << "\",\n  \"lower_bound\": " << to_decimal(rows.empty() ? 0 : rows.front().lower_bound) << ",\n  \"methods\": [";
  for (std::size_t i = 0; i < rows.size(); ++i) {
    const auto& r = rows[i];
    out << (i ? ",\n" : "\n") << "    {\"method\": \"" << r.method << "\"";
    if (!r.unavailable.empty()) {
      out << ", \"unavailable\": \"" << json_escape(r.unavailable) << "\", \"seconds\": " << r.seconds << "}";
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
