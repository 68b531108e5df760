// place(): every method of the table (placement_methods.cpp) run in its share of the time, each mapping
// costed by mpimon's own model, beside packed, random and the lower bound; and the cheapest of them.
#include <algorithm>
#include <chrono>
#include <cmath>
#include <iomanip>
#include <map>
#include <set>
#include <sstream>

#include "mpimon/base/error.hpp"
#include "mpimon/base/summary.hpp"
#include "mpimon/matrices/export.hpp"
#include "mpimon/placement/links.hpp"
#include "mpimon/placement/mappers.hpp"
#include "mpimon/placement/place.hpp"
#include "mpimon/placement/time_model.hpp"

namespace mpimon {

namespace {

uint128 cost_on(const AffinityGraph& graph, const TreeTopology& topo, const Mapping& m) {
  return evaluate_mapping(graph, topo, m).cost;
}

// The method's note, and when the repair moved ranks, how many and which (the first ten).
std::string with_repair_note(const std::string& note, const std::vector<std::uint32_t>& repaired, std::uint32_t ranks) {
  if (repaired.empty()) return note;
  std::ostringstream line;
  line << (note.empty() ? "" : note + "; ") << "repaired " << repaired.size() << " of " << ranks
       << " ranks (put on a leaf already taken or excluded; each moved to the cheapest free usable leaf): ";
  for (std::size_t k = 0; k < repaired.size() && k < 10; ++k) line << (k ? ", " : "") << repaired[k];
  if (repaired.size() > 10) line << ", ...";
  return line.str();
}

std::optional<double> gain(double baseline, double cost) {
  if (cost <= 0 || baseline <= 0) return std::nullopt;
  return 100.0 * (baseline / cost - 1.0);
}

// The time model's prediction of every row that ran (random: over its draws), packed's ratio, the bound.
void predict_rows(std::vector<MethodResult>& results, const TimeTraffic& compute, const TimeTraffic& evaluate,
                  const TreeTopology& topo, const PlacementRequest& request) {
  const double bound = time_lower_bound(evaluate, topo).seconds;
  const double packed = predict_time(evaluate, topo, packed_mapping(evaluate.order, topo)).seconds;
  for (auto& r : results) {
    r.time_bound_seconds = bound;
    if (!r.unavailable.empty()) continue;
    r.predicted = std::make_shared<TimePrediction>(predict_time(evaluate, topo, r.mapping));
    r.computed_seconds = &compute == &evaluate ? r.predicted->seconds : predict_time(compute, topo, r.mapping).seconds;
    if (request.objective == Objective::time)
      r.computed_ordered_seconds = ordered_bandwidth_seconds(compute, topo, r.mapping);
    if (r.draws > 1) {
      std::vector<double> times;
      for (std::uint32_t d = 0; d < r.draws; ++d)
        times.push_back(predict_time(evaluate, topo, random_mapping(evaluate.order, topo, request.seed + d)).seconds);
      r.predicted_mean = mean_of(times);
      r.predicted_sd = sample_sd(times, r.predicted_mean);
    }
    if (packed > 0) r.time_vs_packed = r.predicted_seconds() / packed;
  }
}

}  // namespace

double MethodResult::predicted_seconds() const {
  if (draws > 1) return predicted_mean;
  return predicted ? predicted->seconds : 0;
}

double placement_time_limit(std::uint32_t ranks) { return std::clamp(ranks / 256.0, 10.0, 25.0); }

void check_request(const PlacementRequest& request, bool start_given, bool timed) {
  if (request.time_limit < 0) throw Error(Error::Kind::usage, "--time-limit must be positive (seconds)");
  bool reads_start = request.methods.empty();
  for (const auto& name : request.methods) {
    const PlacementMethod& method = placement_method(name);
    if (method.needs_start_mapping && !start_given) {
      raise_error(Error::Kind::usage, "--method", "the method '" + name + "' needs --start-mapping FILE");
    }
    reads_start = reads_start || method.reads_start_mapping();
  }
  if (start_given && !reads_start) {
    std::string readers;
    for (const auto& m : placement_methods()) {
      if (m.reads_start_mapping()) readers += (readers.empty() ? "" : ", ") + std::string(m.name);
    }
    throw Error(Error::Kind::usage,
                "--start-mapping is read only by the methods " + readers + ": --method lists none of them");
  }
  if (request.objective == Objective::time && !timed) {
    throw Error(Error::Kind::usage,
                "--objective time needs the links' rates and latencies: --link RATE,LATENCY per level, --links "
                "FILE (mpimon probe), or --hostfile of an mpimon cluster");
  }
}

std::vector<MethodResult> place(const AffinityGraph& compute, const AffinityGraph& evaluate, const TreeTopology& topo,
                                const PlacementRequest& request, const TimeTraffic* compute_flows,
                                const TimeTraffic* evaluate_flows) {
  const bool timed = compute_flows != nullptr && evaluate_flows != nullptr && has_links(topo);
  check_request(request, !request.start.empty(), timed);
  if (compute.order != evaluate.order) {
    raise_error(Error::Kind::input, "matrix", "the computing and evaluating traffic have different rank counts");
  }
  if (compute.order > topo.usable_leaves()) {
    raise_error(Error::Kind::input, "--topology",
                std::to_string(compute.order) + " ranks do not fit on the " + std::to_string(topo.usable_leaves()) +
                    (topo.excluded.empty() ? "" : " usable") + " leaves of '" + topo.tleaf() + "'");
  }
  if (!request.start.empty() &&
      (request.start.size() != compute.order ||
       std::any_of(request.start.begin(), request.start.end(), [&](auto leaf) { return leaf >= topo.leaves(); }))) {
    raise_error(
        Error::Kind::usage, "--start-mapping",
        "does not give each of the " + std::to_string(compute.order) + " ranks a leaf of '" + topo.tleaf() + "'");
  }
  const double limit = request.time_limit > 0 ? request.time_limit : placement_time_limit(compute.order);
  std::vector<std::string> names = request.methods;
  if (names.empty()) {
    for (const auto& m : placement_methods()) {
      if (!m.needs_start_mapping || !request.start.empty()) names.emplace_back(m.name);
    }
  }
  // Under objective time packed (the identity) is always a row: the choice is never predicted slower.
  const bool packed_added =
      request.objective == Objective::time && std::find(names.begin(), names.end(), "packed") == names.end();
  if (packed_added) names.emplace_back("packed");
  // With a start mapping, refine improves that one; otherwise the cheapest of the seeds.
  auto seeds_refine = [&](const PlacementMethod& m) {
    return m.seeds_refinement && (request.start.empty() || m.needs_start_mapping);
  };
  std::vector<std::pair<std::string, Mapping>> seeds;  // refine's starting points computed so far
  std::set<std::string> attempted, planned(names.begin(), names.end());
  for (const auto& name : names) {
    for (const auto& m : placement_methods()) {
      if (placement_method(name).starts_from_seeds && seeds_refine(m)) planned.insert(m.name);
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
    out = method.compute({compute, topo, request.seed, seconds, seeds, request.start, request.objective,
                          timed ? compute_flows : nullptr});
    if (out.skipped.empty() && !topo.excluded.empty()) {
      const auto moved = repair_mapping(compute, topo, out.mapping);
      out.repaired.insert(out.repaired.end(), moved.begin(), moved.end());
      std::sort(out.repaired.begin(), out.repaired.end());
      out.repaired.erase(std::unique(out.repaired.begin(), out.repaired.end()), out.repaired.end());
    }
    if (out.skipped.empty() && seeds_refine(method)) seeds.emplace_back(method.name, out.mapping);
    return out;
  };
  const uint128 bound = placement_lower_bound(evaluate, topo);
  std::vector<MethodResult> results;
  for (const auto& name : names) {
    const PlacementMethod* method = &placement_method(name);
    if (method->starts_from_seeds) {  // compute the seeds that were not asked for
      for (const auto& m : placement_methods()) {
        if (seeds_refine(m) && !attempted.count(m.name)) run(m, false);
      }
    }
    const auto started = std::chrono::steady_clock::now();
    MethodOutput out = run(*method, request.methods_explicit);
    MethodResult row;
    row.method = name;
    row.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - started).count();
    row.unavailable = out.skipped;
    row.note = with_repair_note(out.note, out.repaired, compute.order);
    if (packed_added && name == "packed")
      row.note = "added by --objective time, which never keeps a mapping predicted slower than packed";
    row.repaired_ranks = std::move(out.repaired);
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
      row.cost_mean = mean_of(costs);
      row.cost_sd = sample_sd(costs, row.cost_mean);
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
  if (timed) predict_rows(results, *compute_flows, *evaluate_flows, topo, request);
  return results;
}

PlacementTraffic read_placement_traffic(const MatrixFile& file, const std::string& dump,
                                        const std::vector<TrafficClass>& compute,
                                        const std::vector<TrafficClass>& evaluate, Metric metric, bool timed) {
  PlacementTraffic traffic;
  traffic.compute = fold_traffic(sum_classes(file, dump, compute, metric));
  if (evaluate != compute) traffic.evaluate_other = fold_traffic(sum_classes(file, dump, evaluate, metric));
  // The time model reads bytes and messages per directed pair (and the size histograms).
  if (timed) {
    traffic.compute_flows = read_time_traffic(file, dump, compute);
    if (evaluate != compute) traffic.evaluate_other_flows = read_time_traffic(file, dump, evaluate);
  }
  return traffic;
}

std::vector<MethodResult> place(const PlacementTraffic& traffic, const TreeTopology& topo,
                                const PlacementRequest& request) {
  const TimeTraffic* compute_flows = traffic.compute_flows ? &*traffic.compute_flows : nullptr;
  const TimeTraffic* evaluate_flows = traffic.evaluate_other_flows ? &*traffic.evaluate_other_flows : compute_flows;
  return place(traffic.compute, traffic.evaluate(), topo, request, compute_flows, evaluate_flows);
}

namespace {

// The first of the rows that ran and `admits`, least in cost on the computing traffic; nullptr if none.
template <class Admits>
const MethodResult* least_cost(const std::vector<MethodResult>& results, Admits admits) {
  const MethodResult* best = nullptr;
  for (const auto& r : results) {
    if (r.unavailable.empty() && admits(r) && (best == nullptr || r.computed_cost < best->computed_cost)) best = &r;
  }
  return best;
}

}  // namespace

const MethodResult& cheapest(const std::vector<MethodResult>& results, Objective objective) {
  const MethodResult* by_cost = least_cost(results, [](const MethodResult&) { return true; });
  if (by_cost == nullptr) {
    std::string why;
    for (const auto& r : results) why += "; " + r.method + ": " + r.unavailable;
    raise_error(Error::Kind::system, "--method", "no method could run" + why);
  }
  if (objective != Objective::time) return *by_cost;
  // Never a mapping predicted slower than the hop-bytes choice or packed (the identity), nor one the
  // ordered model predicts slower than the hop-bytes choice (a reduction tree's steps: measured,
  // results/placement/measured); among the rest, the cheapest of those within kTimeTolerance of the
  // fastest (the model does not tell mappings apart more finely than that: they are ties). When
  // none is left, the hop-bytes choice.
  const auto ordered_ceiling = by_cost->computed_ordered_seconds;
  auto in_order = [&](const MethodResult& r) {
    return !ordered_ceiling || !r.computed_ordered_seconds ||
           *r.computed_ordered_seconds <= *ordered_ceiling * (1 + kTimeTolerance);
  };
  double ceiling = by_cost->computed_seconds;
  for (const auto& r : results) {
    if (r.unavailable.empty() && r.method == "packed") ceiling = std::min(ceiling, r.computed_seconds);
  }
  double fastest = ceiling;
  for (const auto& r : results) {
    if (r.unavailable.empty() && in_order(r)) fastest = std::min(fastest, r.computed_seconds);
  }
  const MethodResult* chosen = least_cost(results, [&](const MethodResult& r) {
    return r.computed_seconds <= ceiling && r.computed_seconds <= fastest * (1 + kTimeTolerance) && in_order(r);
  });
  return chosen != nullptr ? *chosen : *by_cost;
}

}  // namespace mpimon
