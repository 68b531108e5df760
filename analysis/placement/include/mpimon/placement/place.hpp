#pragma once
// Placing a dump's ranks (docs/placement.md): the request, place() running the methods of the
// table (methods.hpp) and costing every mapping, the choice among them, and the report of it as
// `mpimon place` prints it (a table) and writes it (JSON, format mpimon-placement).

#include <cstdint>
#include <memory>
#include <optional>
#include <ostream>
#include <string>
#include <vector>

#include "mpimon/matrices/matrix_file.hpp"
#include "mpimon/placement/mapping.hpp"
#include "mpimon/placement/methods.hpp"
#include "mpimon/placement/time_model.hpp"
#include "mpimon/placement/topology.hpp"

namespace mpimon {

/// One row of `mpimon place`'s table.
struct MethodResult {
  std::string method;
  Mapping mapping;            ///< for random, the first draw
  PlacementMetrics metrics;   ///< costed on the evaluated traffic; for random, the first draw's
  uint128 computed_cost = 0;  ///< the same mapping costed on the traffic it was computed from
  std::string unavailable;    ///< why the method was skipped ("" when it ran)
  std::string started_from;   ///< refine: the method it improved
  std::string note;           ///< a line under the table ("" for none)
  /// Ranks repair_mapping moved: the mapper put them on a leaf already taken or excluded (JSON
  /// "repaired_ranks"; the note says so when there are any).
  std::vector<std::uint32_t> repaired_ranks;
  uint128 lower_bound = 0;  ///< placement_lower_bound of the evaluated traffic (the same on every row)
  double seconds = 0;       ///< time it took (wall clock)
  /// random: the cost over the draws.
  std::uint32_t draws = 1;
  double cost_mean = 0, cost_sd = 0, cost_min = 0, cost_max = 0;
  /// 100 x (cost of X / this cost - 1); absent when a cost is 0 or X was not run.
  std::optional<double> gain_vs_packed, gain_vs_random;
  [[nodiscard]] double cost() const { return draws > 1 ? cost_mean : static_cast<double>(metrics.cost); }
  /// The time model (when the topology has links): the prediction on the evaluated traffic (for
  /// random, the first draw's; predicted_mean and predicted_sd over the draws), on the computing
  /// traffic (what --objective time chooses by), packed's prediction over this one, and the lower
  /// bound on any mapping's prediction (the same on every row).
  std::shared_ptr<const TimePrediction> predicted;
  double computed_seconds = 0;
  /// --objective time: ordered_bandwidth_seconds on the computing traffic (what the choice is checked by).
  std::optional<double> computed_ordered_seconds;
  double predicted_mean = 0, predicted_sd = 0;
  std::optional<double> time_vs_packed;  ///< this row's predicted seconds / packed's
  double time_bound_seconds = 0;
  [[nodiscard]] double predicted_seconds() const;
};

struct PlacementRequest {
  std::vector<std::string> methods;  ///< empty: every method of the table
  bool methods_explicit = false;     ///< listed by the user: an unavailable method is then an error
  std::uint64_t seed = 1;
  std::uint32_t random_draws = 100;
  double time_limit = 0;  ///< seconds for all methods together; 0: placement_time_limit(ranks)
  Mapping start;          ///< --start-mapping (read_mapping), possibly with ranks sharing a leaf; empty: none
  Objective objective = Objective::hop_bytes;  ///< what refine minimises and the chosen row is least in
};
/// The default time limit: 10 s up to 2560 ranks, ranks / 256 s above, at most 25 s.
double placement_time_limit(std::uint32_t ranks);

/// The checks of a request's options against each other, before any traffic is read (place()
/// makes them too): every method is in the table; a method that needs --start-mapping has one
/// (`start_given`), and a start mapping given is read by a method asked for; --time-limit is not
/// negative; --objective time has the links' rates and latencies (`timed`). Throws
/// Error::Kind::usage naming the option.
void check_request(const PlacementRequest& request, bool start_given, bool timed);

/// Runs the methods on `compute` (the traffic the mappings are computed from) and costs them on
/// `evaluate` (the traffic they are judged by). `refine` starts from the cheapest of the methods
/// that seed it (computing them if they were not asked for) under `compute`.
/// With the flows of both (time_model.hpp) and a topology with links, every row also gets the time
/// model's prediction; --objective time needs them (else Error::Kind::usage naming --objective),
/// and adds packed's row when the methods asked for leave it out.
std::vector<MethodResult> place(const AffinityGraph& compute, const AffinityGraph& evaluate, const TreeTopology& topo,
                                const PlacementRequest& request, const TimeTraffic* compute_flows = nullptr,
                                const TimeTraffic* evaluate_flows = nullptr);
/// A dump's traffic as a placement reads it: the graph the mappings are computed from, the one they
/// are costed on (the same when the classes are), and, for the time model, their flows.
struct PlacementTraffic {
  AffinityGraph compute;
  std::optional<AffinityGraph> evaluate_other;  ///< the costed traffic, when its classes differ
  std::optional<TimeTraffic> compute_flows, evaluate_other_flows;
  [[nodiscard]] const AffinityGraph& evaluate() const { return evaluate_other ? *evaluate_other : compute; }
};
/// Reads a dump's traffic of `compute` and `evaluate` classes in `metric`, and with `timed` (a
/// topology with links) their flows (read_time_traffic).
PlacementTraffic read_placement_traffic(const MatrixFile& file, const std::string& dump,
                                        const std::vector<TrafficClass>& compute,
                                        const std::vector<TrafficClass>& evaluate, Metric metric, bool timed);
/// place() on that traffic.
std::vector<MethodResult> place(const PlacementTraffic& traffic, const TreeTopology& topo,
                                const PlacementRequest& request);
/// Predictions this close (relative) count as equal when choosing under objective time.
inline constexpr double kTimeTolerance = 0.01;
/// The row whose mapping is cheapest on the traffic the mappings were computed from (a choice
/// that uses no knowledge of the evaluated traffic); the first of equal rows. With objective time,
/// among the rows predicted on that traffic no slower than the hop-bytes choice (the cheapest row)
/// and packed (the identity; place() adds its row under objective time), the cheapest of those
/// within kTimeTolerance (1 %) of the least: the time model does not separate mappings more finely,
/// so among those the cost decides.
const MethodResult& cheapest(const std::vector<MethodResult>& results, Objective objective = Objective::hop_bytes);

/// What a placement was computed from, as its report states it.
struct PlacementContext {
  std::string input;             ///< the matrices file
  std::string dump;              ///< the dump placed
  std::uint32_t ranks = 0;       ///< its number of processes
  std::string classes;           ///< traffic the mappings are computed from (as given)
  std::string evaluate_classes;  ///< traffic every mapping is costed on (as given)
  std::string metric;            ///< bytes or count
  std::uint64_t seed = 1;        ///< the first seed of the random draws
  std::string links_source;      ///< where the time model's links came from (--link, a probe's file, a cluster)
};

/// `mpimon place --json`: format "mpimon-placement" (docs/placement.md), every row with its
/// mapping; `chosen` is the method the mapping files take.
void write_placement_json(std::ostream& out, const std::vector<MethodResult>& rows, const TreeTopology& topo,
                          const PlacementContext& context, const std::string& chosen,
                          Objective objective = Objective::hop_bytes);
/// `mpimon place`'s table: each mapping's modelled cost (and predicted time, with links) and traffic
/// per level, and in words which mapping is cheaper than packed and by how much; `chosen` is marked.
void write_placement_table(std::ostream& out, const std::vector<MethodResult>& rows, const TreeTopology& topo,
                           const PlacementContext& context, const std::string& chosen,
                           Objective objective = Objective::hop_bytes);

}  // namespace mpimon
