// The placement methods: one entry each, read by `mpimon place`'s method list, dispatch,
// refinement seeds, help and errors (docs/placement.md).
#include <algorithm>
#include <chrono>
#include <iomanip>
#include <sstream>

#include "mpimon/base/error.hpp"
#include "mpimon/base/option_list.hpp"
#include "mpimon/matrices/export.hpp"
#include "mpimon/placement/mappers.hpp"
#include "mpimon/placement/methods.hpp"
#include "mpimon/placement/time_model.hpp"
#include "placement_internal.hpp"

namespace mpimon {

namespace {

std::string available() { return ""; }

std::string seconds_text(double s) {
  std::ostringstream out;
  out << std::fixed << std::setprecision(1) << s << " s";
  return out.str();
}

// What the objective ranks mappings by: the cost, or the predicted time (cost breaking ties).
struct Score {
  double seconds;
  uint128 cost;
  bool operator<(const Score& o) const { return seconds != o.seconds ? seconds < o.seconds : cost < o.cost; }
};
Score score(const MethodInput& in, const Mapping& m) {
  const bool timed = in.objective == Objective::time && in.flows != nullptr;
  return {timed ? predict_time(*in.flows, in.topo, m).seconds : 0, evaluate_mapping(in.graph, in.topo, m).cost};
}

std::string late(const MethodInput& in) {
  return "skipped: did not finish within its share of the time limit (" + seconds_text(in.seconds) + "; --time-limit)";
}

MethodOutput treematch(const MethodInput& in) {
  if (in.graph.order > kDenseExportLimit) {
    const double gigabytes = 8.0 * in.graph.order * in.graph.order / 1e9;
    std::ostringstream why;
    why << "skipped: TreeMatch needs a dense N x N matrix (" << std::setprecision(3) << gigabytes << " GB at "
        << in.graph.order << " ranks; mpimon runs it up to " << kDenseExportLimit << ")";
    return {{}, why.str(), "", ""};
  }
  bool timed_out = false;
  Mapping m = treematch_mapping(in.graph, in.topo, in.seconds, &timed_out);
  if (timed_out) return {{}, late(in), "", ""};
  return {std::move(m), "", "", ""};
}

MethodOutput scotch(const MethodInput& in) {
  bool timed_out = false;
  std::vector<std::uint32_t> repaired;
  Mapping m = scotch_mapping(in.graph, in.topo, in.seconds, &timed_out, &repaired);
  if (timed_out) return {{}, late(in), "", ""};
  return {std::move(m), "", "", "", std::move(repaired)};
}

MethodOutput packed(const MethodInput& in) { return {packed_mapping(in.graph.order, in.topo), "", "", ""}; }
MethodOutput cyclic(const MethodInput& in) { return {cyclic_mapping(in.graph.order, in.topo), "", "", ""}; }
MethodOutput random(const MethodInput& in) { return {random_mapping(in.graph.order, in.topo, in.seed), "", "", ""}; }

// METIS multisection: as many seeds as 60 % of the share allows (at most 1024), the 8 cheapest kept
// before any search (a multisection's own cost ranks it well, and partitioning is far cheaper than
// searching), then the local search on each of those in the time left; the best kept.
MethodOutput multisection(const MethodInput& in) {
  using clock = std::chrono::steady_clock;
  constexpr int kMaxSeeds = 1024;
  constexpr std::size_t kSearched = 8;
  constexpr double kPartitioningShare = 0.6;
  const auto start = clock::now();
  const auto deadline = placement_detail::deadline_after(in.seconds);
  const auto screened = placement_detail::deadline_after(in.seconds * kPartitioningShare);
  std::vector<std::pair<uint128, Mapping>> kept;  // the cheapest partitions, cheapest first
  int seeds = 0;
  for (auto last = clock::duration::zero(); seeds < kMaxSeeds; ++seeds) {
    const auto t0 = clock::now();
    if (seeds > 0 && t0 + last > screened) break;
    Mapping m = multisection_mapping(in.graph, in.topo, in.seed + static_cast<std::uint64_t>(seeds));
    const uint128 c = evaluate_mapping(in.graph, in.topo, m).cost;
    const auto at = std::find_if(kept.begin(), kept.end(), [&](const auto& k) { return c < k.first; });
    if (kept.size() < kSearched || at != kept.end()) kept.emplace(at, c, std::move(m));
    if (kept.size() > kSearched) kept.pop_back();
    last = clock::now() - t0;
  }
  const double partitioning = std::chrono::duration<double>(clock::now() - start).count();
  Mapping best;
  Score best_score{};
  for (std::size_t i = 0; i < kept.size(); ++i) {
    const double left = std::chrono::duration<double>(deadline - clock::now()).count();
    Mapping m = refine_mapping(in.graph, in.topo, std::move(kept[i].second),
                               std::max(left / static_cast<double>(kept.size() - i), 0.0));
    const Score c = score(in, m);
    if (best.empty() || c < best_score) best = std::move(m), best_score = c;
  }
  const double searching = std::chrono::duration<double>(clock::now() - start).count() - partitioning;
  return {std::move(best), "",
          "METIS multisection + local search: " + std::to_string(seeds) + " seeds, the " + std::to_string(kept.size()) +
              " cheapest searched (" + seconds_text(partitioning) + " partitioning, " + seconds_text(searching) +
              " searching)",
          ""};
}

// Refines the best mapping of the methods that seed it: on the cost, or with objective time on
// the predicted time, from every seed and the cost's local optima near the fastest seed and near
// the cheapest (the mapping the hop-bytes objective refines); of the search's answer and those
// starts, the fastest is kept, so it is never predicted slower than any of them.
MethodOutput refine(const MethodInput& in) {
  const std::pair<std::string, Mapping>* start = nullptr;
  Score start_score{};
  for (const auto& seed : in.seeds) {
    const Score c = score(in, seed.second);
    if (start == nullptr || c < start_score) start = &seed, start_score = c;
  }
  if (start == nullptr) return {{}, "skipped: no method to start from", "", ""};
  if (in.objective != Objective::time || in.flows == nullptr) {
    return {refine_mapping(in.graph, in.topo, start->second, in.seconds), "",
            "local search (swaps next to each rank's peers) starting from " + start->first, start->first};
  }
  const auto deadline = placement_detail::deadline_after(in.seconds);
  const auto* cheapest_seed = &*std::min_element(in.seeds.begin(), in.seeds.end(), [&](const auto& a, const auto& b) {
    return evaluate_mapping(in.graph, in.topo, a.second).cost < evaluate_mapping(in.graph, in.topo, b.second).cost;
  });
  std::vector<std::pair<std::string, Mapping>> starts{
      {start->first, start->second},
      {"the cost's local search from " + start->first,
       refine_mapping(in.graph, in.topo, start->second, in.seconds / 8)}};
  if (cheapest_seed != start) {
    starts.emplace_back("the cost's local search from " + cheapest_seed->first,
                        refine_mapping(in.graph, in.topo, cheapest_seed->second, in.seconds / 8));
  }
  for (const auto& seed : in.seeds) {
    if (&seed != start) starts.push_back(seed);
  }
  std::vector<Mapping> mappings;
  for (const auto& s : starts) mappings.push_back(s.second);
  const double left = std::chrono::duration<double>(deadline - std::chrono::steady_clock::now()).count();
  Mapping found = refine_time_mapping(*in.flows, in.topo, mappings, std::max(left, 0.0));
  std::string note = "local search on the predicted time (ranks moved off the busiest links) from every seed, " +
                     start->first + "'s the fastest";
  // The search may run out of time before descending from every start: none of them is kept slower.
  double seconds = predict_time(*in.flows, in.topo, found).seconds;
  for (const auto& s : starts) {
    if (const double t = predict_time(*in.flows, in.topo, s.second).seconds; t < seconds) {
      found = s.second, seconds = t;
      note = "kept " + s.first + ": the local search on the predicted time found nothing faster in its time";
    }
  }
  return {std::move(found), "", note, start->first};
}

// The user's mapping (--start-mapping), costed as it is once ranks sharing a leaf are repaired.
MethodOutput given(const MethodInput& in) {
  if (in.start.empty()) return {{}, "skipped: no --start-mapping given", "", ""};
  Mapping m = in.start;
  std::vector<std::uint32_t> repaired = repair_mapping(in.graph, in.topo, m);
  return {std::move(m), "", "", "", std::move(repaired)};
}

std::string treematch_unavailable() { return find_treematch().problem; }

}  // namespace

const std::vector<PlacementMethod>& placement_methods() {
  static const std::vector<PlacementMethod> methods = {
      {.name = "treematch",
       .summary = "the real TreeMatch (Open MPI 4.1's topo/treematch library), up to 8192 ranks",
       .unavailable = treematch_unavailable,
       .compute = treematch,
       .seeds_refinement = true,
       .share = 0.3},
      {.name = "scotch",
       .summary = "Scotch's SCOTCH_graphMap onto the same tree-leaf",
       .unavailable = placement_detail::scotch_unavailable,
       .compute = scotch,
       .seeds_refinement = true,
       .share = 0.25},
      {.name = "multisection",
       .summary = "METIS multisection along the hierarchy, then local search (several seeds)",
       .unavailable = available,
       .compute = multisection,
       .seeds_refinement = true,
       .share = 0.3},
      {.name = "packed",
       .summary = "rank i on leaf i (mpirun's default fill)",
       .unavailable = available,
       .compute = packed,
       .seeds_refinement = true},
      {.name = "cyclic",
       .summary = "rank i on node i mod nodes (--map-by node)",
       .unavailable = available,
       .compute = cyclic,
       .seeds_refinement = true},
      {.name = "random",
       .summary = "seeded uniform mappings (mean +- sd over 100 draws)",
       .unavailable = available,
       .compute = random,
       .drawn = true},
      {.name = "given",
       .summary = "the mapping of --start-mapping FILE, ranks sharing a leaf repaired (only with that option)",
       .unavailable = available,
       .compute = given,
       .seeds_refinement = true,
       .needs_start_mapping = true},
      {.name = "refine",
       .summary = "local search from the cheapest of the methods above but random (from given alone when there is one)",
       .unavailable = available,
       .compute = refine,
       .starts_from_seeds = true,
       .share = 0.15},
  };
  return methods;
}

const PlacementMethod* find_placement_method(const std::string& name) {
  for (const auto& m : placement_methods()) {
    if (name == m.name) return &m;
  }
  return nullptr;
}

const PlacementMethod& placement_method(const std::string& name) {
  const PlacementMethod* method = find_placement_method(name);
  if (method == nullptr) {
    throw Error(Error::Kind::usage,
                "unknown method '" + name + "' in --method (" + placement_method_names() + ", all)");
  }
  return *method;
}

std::string placement_method_names() {
  std::string names;
  for (const auto& m : placement_methods()) names += (names.empty() ? "" : ", ") + std::string(m.name);
  return names;
}

std::vector<std::string> parse_methods(const std::string& text) {
  if (text == "all") return {};
  std::vector<std::string> names = split_list(text, "method");
  for (const auto& name : names) placement_method(name);
  return names;
}

const char* objective_name(Objective o) { return o == Objective::time ? "time" : "hop-bytes"; }

Objective parse_objective(const std::string& text) {
  if (text == "hop-bytes") return Objective::hop_bytes;
  if (text == "time") return Objective::time;
  raise_error(Error::Kind::usage, "--objective", "takes hop-bytes or time, not '" + text + "'");
}

}  // namespace mpimon
