#pragma once
// The placement methods (docs/placement.md, "Methods"): one table, each entry a mapping algorithm
// (mappers.hpp) behind one interface, which `mpimon place`'s method list, dispatch, refinement
// seeds, help and errors read; and what the methods minimise.

#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "mpimon/placement/mapping.hpp"
#include "mpimon/placement/topology.hpp"

namespace mpimon {

struct TimeTraffic;  // time_model.hpp

/// What the mappings minimise (--objective): the tree-leaf cost, or the time model's prediction
/// (time_model.hpp), which needs link parameters.
enum class Objective { hop_bytes, time };
/// "hop-bytes" or "time".
const char* objective_name(Objective o);
/// Parses --objective; throws Error::Kind::usage naming it.
Objective parse_objective(const std::string& text);

/// What a method's compute function gets.
struct MethodInput {
  const AffinityGraph& graph;  ///< the traffic the mappings are computed from
  const TreeTopology& topo;
  std::uint64_t seed;
  double seconds;  ///< the method's share of the time limit
  /// The mappings computed so far by the methods that seed the refinement (name, mapping).
  const std::vector<std::pair<std::string, Mapping>>& seeds;
  const Mapping& start;  ///< --start-mapping as read (empty when none was given)
  Objective objective = Objective::hop_bytes;
  const TimeTraffic* flows = nullptr;  ///< the computing traffic's flows (with objective time)
};
/// What it returns: an empty mapping with `skipped` set when it could not run or finish (a note
/// under the table says why), `note` for a line under the table ("" for none).
struct MethodOutput {
  Mapping mapping;
  std::string skipped, note, started_from;
  std::vector<std::uint32_t> repaired{};  ///< ranks repair_mapping moved off the mapper's answer
};

/// One placement method: the single entry `mpimon place`'s method list, dispatch, refinement
/// seeds, help and errors read (docs/placement.md#methods---method-comma-separated-default-all).
struct PlacementMethod {
  const char* name;
  const char* summary;  ///< one line for the help and the docs
  /// Why the method cannot run on this machine ("" when it can); when not asked for by name,
  /// such a method is skipped with a note; asked for, it is an error.
  std::string (*unavailable)();
  MethodOutput (*compute)(const MethodInput&);
  bool seeds_refinement = false;   ///< `refine` starts from the cheapest of these
  bool starts_from_seeds = false;  ///< it needs those seeds (computed first when they were not asked for)
  bool drawn = false;              ///< its row shows the cost over PlacementRequest::random_draws seeded draws
  double share = 0;                ///< fraction of the time limit it may use (0: O(non-zeros), not limited)
  /// It is the mapping of --start-mapping: run only when one is given, and then the only seed of
  /// `refine` (the user's mapping is what they want improved).
  bool needs_start_mapping = false;
  /// It reads --start-mapping: it is that mapping, or it starts from the seeds (which it is then).
  [[nodiscard]] bool reads_start_mapping() const { return needs_start_mapping || starts_from_seeds; }
};
/// The methods, in the order of the table.
const std::vector<PlacementMethod>& placement_methods();
/// The method called `name`, or nullptr.
const PlacementMethod* find_placement_method(const std::string& name);
/// The method called `name`; throws Error::Kind::usage naming --method when the table has none.
const PlacementMethod& placement_method(const std::string& name);
/// "treematch, scotch, ..." for help and error messages.
std::string placement_method_names();
/// Parses --method: "all" (every method of the table: an empty list) or names of the table,
/// comma-separated; throws Error::Kind::usage naming --method for an empty or unknown name.
std::vector<std::string> parse_methods(const std::string& text);

}  // namespace mpimon
