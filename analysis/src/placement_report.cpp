// `mpimon place`'s rows: every method's mapping, costed by mpimon's own model.
#include <algorithm>
#include <cmath>
#include <map>

#include "mpimon/error.hpp"
#include "mpimon/placement.hpp"

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

}  // namespace mpimon
