// `mpimon place`'s rows: every method's mapping, costed by mpimon's own model; their JSON report.
#include <algorithm>
#include <chrono>
#include <cmath>
#include <iomanip>
#include <map>
#include <set>
#include <sstream>

#include "mpimon/base/error.hpp"
#include "mpimon/base/json.hpp"
#include "mpimon/placement/placement.hpp"

namespace mpimon {

namespace {

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
  if (compute.order > topo.usable_leaves()) {
    raise_error(Error::Kind::input, "--topology",
                std::to_string(compute.order) + " ranks do not fit on the " + std::to_string(topo.usable_leaves()) +
                    (topo.excluded.empty() ? "" : " usable") + " leaves of '" + topo.tleaf() + "'");
  }
  const double limit = request.time_limit > 0 ? request.time_limit : placement_time_limit(compute.order);
  std::vector<std::string> names = request.methods;
  if (names.empty()) {
    for (const auto& m : placement_methods()) names.emplace_back(m.name);
  }
  std::vector<std::pair<std::string, Mapping>> seeds;  // refine's starting points computed so far
  std::set<std::string> attempted, planned(names.begin(), names.end());
  for (const auto& name : names) {
    const PlacementMethod* method = find_placement_method(name);
    if (method == nullptr) {
      raise_error(Error::Kind::usage, "--method", "unknown method '" + name + "' (" + placement_method_names() + ")");
    }
    for (const auto& m : placement_methods()) {
      if (method->starts_from_seeds && m.seeds_refinement) planned.insert(m.name);
    }
  }
  const auto begin = std::chrono::steady_clock::now();
  auto run = [&](const PlacementMethod& method, bool must_run) {
    attempted.insert(method.name);
    MethodOutput out;
    if (const std::string why = method.unavailable(); !why.empty()) {
      if (must_run) raise_error(Error::Kind::system, method.name, why);
      out.skipped = why;
      return out;
    }
    // Its share of what is left: time the methods before it did not use goes to those after it.
    double shares_left = 0;
    for (const auto& m : placement_methods()) {
      if (planned.count(m.name) && (!attempted.count(m.name) || m.name == std::string(method.name)))
        shares_left += m.share;
    }
    const double left = limit - std::chrono::duration<double>(std::chrono::steady_clock::now() - begin).count();
    const double seconds = shares_left > 0 ? std::max(method.share * limit, left * method.share / shares_left) : 0;
    out = method.compute({compute, topo, request.seed, seconds, seeds});
    if (out.skipped.empty() && !topo.excluded.empty()) repair_mapping(compute, topo, out.mapping);
    if (out.skipped.empty() && method.seeds_refinement) seeds.emplace_back(method.name, out.mapping);
    return out;
  };
  const uint128 bound = placement_lower_bound(evaluate, topo);
  std::vector<MethodResult> results;
  for (const auto& name : names) {
    const PlacementMethod* method = find_placement_method(name);
    if (method->starts_from_seeds) {  // compute the seeds that were not asked for
      for (const auto& m : placement_methods()) {
        if (m.seeds_refinement && !attempted.count(m.name)) run(m, false);
      }
    }
    const auto started = std::chrono::steady_clock::now();
    MethodOutput out = run(*method, request.methods_explicit);
    MethodResult row;
    row.method = name;
    row.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - started).count();
    row.unavailable = out.skipped;
    row.note = out.note;
    row.started_from = out.started_from;
    row.lower_bound = bound;
    if (!row.unavailable.empty()) {
      results.push_back(row);
      continue;
    }
    row.mapping = std::move(out.mapping);
    row.metrics = evaluate_mapping(evaluate, topo, row.mapping);
    row.computed_cost = &compute == &evaluate ? row.metrics.cost : cost_on(compute, topo, row.mapping);
    if (method->drawn && request.random_draws > 1) {
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
  if (best == nullptr) {
    std::string why;
    for (const auto& r : results) why += "; " + r.method + ": " + r.unavailable;
    raise_error(Error::Kind::system, "--method", "no method could run" + why);
  }
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
    out << ", \"mapping\": [";
    for (std::size_t k = 0; k < r.mapping.size(); ++k) out << (k ? ", " : "") << r.mapping[k];
    out << "]}";
  }
  out << "\n  ]\n}\n";
}

}  // namespace mpimon
