// `mpimon place`'s rows: every method's mapping, costed by mpimon's own model; their JSON report.
#include <algorithm>
#include <cmath>
#include <iomanip>
#include <map>
#include <sstream>

#include "mpimon/base/error.hpp"
#include "mpimon/base/json.hpp"
#include "mpimon/placement/placement.hpp"

namespace mpimon {

namespace {

// A method's mapping computed from `compute`; empty with `why` set when the method is unavailable.
Mapping run_method(const std::string& method, const AffinityGraph& compute, const TreeTopology& topo,
                   std::uint64_t seed, bool must_run, std::string& why) {
  if (method == "packed") return packed_mapping(compute.order, topo);
  if (method == "cyclic") return cyclic_mapping(compute.order, topo);
  if (method == "random") return random_mapping(compute.order, topo, seed);
  if (method == "scotch") return scotch_mapping(compute, topo);
  if (method == "treematch") {
    if (!must_run) {
      const TreeMatchLibrary lib = find_treematch();
      if (lib.path.empty()) {
        why = lib.problem;
        return {};
      }
    }
    return treematch_mapping(compute, topo);
  }
  raise_error(Error::Kind::usage, "--method", "unknown method '" + method + "'");
}

uint128 cost_on(const AffinityGraph& graph, const TreeTopology& topo, const Mapping& m) {
  return evaluate_mapping(graph, topo, m).cost;
}

std::optional<double> gain(double baseline, double cost) {
  if (cost <= 0 || baseline <= 0) return std::nullopt;
  return 100.0 * (baseline / cost - 1.0);
}

}  // namespace

std::vector<MethodResult> place(const AffinityGraph& compute, const AffinityGraph& evaluate, const TreeTopology& topo,
                                const PlacementRequest& request) {
  if (compute.order != evaluate.order) {
    raise_error(Error::Kind::input, "matrix", "the computing and evaluating traffic have different rank counts");
  }
  if (compute.order > topo.leaves()) {
    raise_error(Error::Kind::input, "--topology",
                std::to_string(compute.order) + " ranks do not fit on the " + std::to_string(topo.leaves()) +
                    " leaves of '" + topo.tleaf() + "'");
  }
  std::map<std::string, Mapping> computed;  // mappings computed so far, for refine's start
  std::vector<MethodResult> results;
  for (const auto& method : request.methods) {
    MethodResult row;
    row.method = method;
    if (method == "refine") {
      std::string start_method;
      uint128 start_cost = 0;
      for (const char* base : {"treematch", "scotch", "packed", "cyclic"}) {
        if (!computed.count(base)) {
          std::string why;
          Mapping m = run_method(base, compute, topo, request.seed, false, why);
          if (m.empty() && compute.order > 0) continue;
          computed[base] = std::move(m);
        }
        const uint128 c = cost_on(compute, topo, computed[base]);
        if (start_method.empty() || c < start_cost) start_method = base, start_cost = c;
      }
      row.started_from = start_method;
      row.mapping = refine_mapping(compute, topo, computed[start_method]);
    } else {
      row.mapping = run_method(method, compute, topo, request.seed, request.methods_explicit, row.unavailable);
      if (!row.unavailable.empty()) {
        results.push_back(row);
        continue;
      }
      computed[method] = row.mapping;
    }
    row.metrics = evaluate_mapping(evaluate, topo, row.mapping);
    row.computed_cost = &compute == &evaluate ? row.metrics.cost : cost_on(compute, topo, row.mapping);
    if (method == "random" && request.random_draws > 1) {
      std::vector<double> costs;
      for (std::uint32_t d = 0; d < request.random_draws; ++d) {
        costs.push_back(
            static_cast<double>(cost_on(evaluate, topo, random_mapping(compute.order, topo, request.seed + d))));
      }
      row.draws = request.random_draws;
      double sum = 0, squares = 0;
      for (double c : costs) sum += c;
      row.cost_mean = sum / static_cast<double>(costs.size());
      for (double c : costs) squares += (c - row.cost_mean) * (c - row.cost_mean);
      row.cost_sd = std::sqrt(squares / static_cast<double>(costs.size() - 1));
      row.cost_min = *std::min_element(costs.begin(), costs.end());
      row.cost_max = *std::max_element(costs.begin(), costs.end());
    }
    results.push_back(row);
  }
  // Gains against packed and random, computed for them too when they were not asked for.
  const double packed = static_cast<double>(cost_on(evaluate, topo, packed_mapping(evaluate.order, topo)));
  double random = 0;
  for (const auto& r : results) {
    if (r.method == "random" && r.unavailable.empty()) random = r.cost();
  }
  if (random == 0 && request.random_draws > 0) {
    for (std::uint32_t d = 0; d < request.random_draws; ++d) {
      random += static_cast<double>(cost_on(evaluate, topo, random_mapping(evaluate.order, topo, request.seed + d)));
    }
    random /= request.random_draws;
  }
  for (auto& r : results) {
    if (!r.unavailable.empty()) continue;
    r.gain_vs_packed = gain(packed, r.cost());
    r.gain_vs_random = gain(random, r.cost());
  }
  return results;
}

const MethodResult& cheapest(const std::vector<MethodResult>& results) {
  const MethodResult* best = nullptr;
  for (const auto& r : results) {
    if (!r.unavailable.empty()) continue;
    if (best == nullptr || r.computed_cost < best->computed_cost) best = &r;
  }
  if (best == nullptr) raise_error(Error::Kind::system, "--method", "no method could run");
  return *best;
}

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
      << ",\n  \"chosen\": \"" << chosen << "\",\n  \"methods\": [";
  for (std::size_t i = 0; i < rows.size(); ++i) {
    const auto& r = rows[i];
    out << (i ? ",\n" : "\n") << "    {\"method\": \"" << r.method << "\"";
    if (!r.unavailable.empty()) {
      out << ", \"unavailable\": \"" << json_escape(r.unavailable) << "\"}";
      continue;
    }
    out << ", \"cost\": " << to_decimal(r.metrics.cost) << ", \"computed_cost\": " << to_decimal(r.computed_cost);
    if (r.draws > 1) {
      out << std::setprecision(17) << ", \"draws\": " << r.draws << ", \"cost_mean\": " << r.cost_mean
          << ", \"cost_sd\": " << r.cost_sd << ", \"cost_min\": " << r.cost_min << ", \"cost_max\": " << r.cost_max;
    }
    out << ", \"gain_vs_packed_percent\": " << optional_number(r.gain_vs_packed)
        << ", \"gain_vs_random_percent\": " << optional_number(r.gain_vs_random) << ", \"crossing\": [";
    for (std::size_t l = 0; l < r.metrics.crossing.size(); ++l)
      out << (l ? ", " : "") << to_decimal(r.metrics.crossing[l]);
    out << "], \"busiest_node_off_node\": " << to_decimal(r.metrics.busiest_node_off_node);
    if (!r.started_from.empty()) out << ", \"started_from\": \"" << r.started_from << "\"";
    out << ", \"mapping\": [";
    for (std::size_t k = 0; k < r.mapping.size(); ++k) out << (k ? ", " : "") << r.mapping[k];
    out << "]}";
  }
  out << "\n  ]\n}\n";
}

}  // namespace mpimon
