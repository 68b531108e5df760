#pragma once
// Process placement from a traffic matrix (docs/placement.md): tree-leaf topologies, the
// cost model TreeMatch and Scotch share, the mapping methods and the files that apply a mapping.
//
// A mapping gives each MPI_COMM_WORLD rank a leaf of the tree, leaves numbered 0.. in tree order as
// TreeMatch numbers a tree-leaf's leaves. Everything reads the traffic as a list of non-zeros;
// nothing here is N x N except the TreeMatch adapter (TreeMatch itself takes a dense matrix).

#include <cstdint>
#include <memory>
#include <optional>
#include <ostream>
#include <string>
#include <vector>

#include "mpimon/matrices/matrix.hpp"

namespace mpimon {

/// The links below one level of a tree, as a network: what the time model and the simulator need
/// beyond the cost model's abstract link costs. Rates and latencies are parsed by base/units.hpp.
struct LinkSpec {
  double bits_per_second = 0;  ///< 0: unknown
  double latency_seconds = 0;
};

/// A balanced tree: `arity[l]` children per node of level l (top first), `link_cost[l]` the cost of
/// the links below level l. The cost of a pair whose lowest common level is l is the sum of
/// link_cost[l..] (aggregated as TreeMatch's tgt_to_tm and Scotch's tleaf distance do).
struct TreeTopology {
  std::vector<std::uint32_t> arity;
  std::vector<std::uint64_t> link_cost;
  /// How the levels map onto a cluster, for rankfiles: the top `node_levels` levels number the
  /// nodes, the next `socket_levels` the sockets of a node, the rest the cores of a socket.
  std::uint32_t node_levels = 0;
  std::uint32_t socket_levels = 0;
  std::string source;  ///< how the user wrote it ("8x2x4", a file name)
  /// --slots-per-leaf K > 1: the last level (arity K, link cost 0) holds the K ranks a core may run;
  /// the tree's leaves are then slots and core_of() gives the core (what the files name).
  std::uint32_t slots_per_core = 1;
  /// --exclude-leaves: slots that must stay free (empty: none).
  std::vector<bool> excluded;
  /// The links below each level, top first (empty: not given; the cost model does not read them).
  std::vector<LinkSpec> links;

  [[nodiscard]] std::uint32_t levels() const { return static_cast<std::uint32_t>(arity.size()); }
  [[nodiscard]] std::uint64_t leaves() const;
  [[nodiscard]] std::uint64_t nodes() const;  ///< product of the node levels' arities
  [[nodiscard]] std::uint64_t leaves_per_node() const { return leaves() / nodes(); }
  /// "tleaf L a0 c0 a1 c1 ...", single spaces: a line both TreeMatch and Scotch read.
  [[nodiscard]] std::string tleaf() const;
  /// The lowest common level of two different leaves (0 = they differ at the top level).
  [[nodiscard]] std::uint32_t common_level(std::uint64_t a, std::uint64_t b) const;
  /// The cost of a pair of leaves (0 for a leaf with itself).
  [[nodiscard]] std::uint64_t distance(std::uint64_t a, std::uint64_t b) const;
  [[nodiscard]] bool usable(std::uint64_t leaf) const { return excluded.empty() || !excluded[leaf]; }
  [[nodiscard]] std::uint64_t usable_leaves() const;
  [[nodiscard]] std::uint64_t core_of(std::uint64_t leaf) const { return leaf / slots_per_core; }
};

/// `topo` with up to `k` ranks per core: a bottom level of arity k and link cost 0 (k >= 1).
TreeTopology with_slots(TreeTopology topo, std::uint32_t k);
/// `topo` with the cores `cores` (indices of the tree without slots) kept free; throws
/// Error::Kind::usage naming --exclude-leaves when one is beyond the tree.
TreeTopology with_excluded(TreeTopology topo, const std::vector<std::uint64_t>& cores);

/// Default link costs of the NxSxC shorthand, top first: between nodes, sockets, cores.
inline constexpr std::uint64_t kNodeLinkCost = 100, kSocketLinkCost = 10, kCoreLinkCost = 1;

/// Parses a tree-leaf line ("tleaf L a0 c0 ...", any whitespace; `where` names it in errors).
TreeTopology parse_tleaf(const std::string& text, const std::string& where);
/// Parses what `--topology` accepts: a tleaf line, "NxSxC" (nodes x sockets x cores, default costs),
/// the name of a file holding a tleaf line (.tgt), an hwloc XML file (one node, cores as leaves), or
/// "N@node.xml" (N nodes of that shape under a network level of link cost kNodeLinkCost).
/// Throws Error::Kind::usage naming --topology when it is none of these.
TreeTopology parse_topology(const std::string& text);

/// The undirected traffic: pairs i < j with weight w_ij = M_ij + M_ji, built from the non-zeros.
struct AffinityGraph {
  std::uint32_t order = 0;
  struct Edge {
    std::uint32_t a, b;
    std::uint64_t weight;
  };
  std::vector<Edge> edges;
  /// Per-rank adjacency (both directions) into `edges` for local search.
  [[nodiscard]] std::vector<std::vector<std::pair<std::uint32_t, std::uint64_t>>> adjacency() const;
};
/// Folds a directed square matrix; throws Error::Kind::input when it is not square.
AffinityGraph fold_traffic(const SparseMatrix& directed);
/// Folds a list of directed edges (a -> b, weight) of `order` vertices as fold_traffic folds a
/// matrix: w_ab sums every edge between a and b either way; self-loops and zero weights are dropped.
/// O(edges log edges), nothing N x N. Throws Error::Kind::input on an endpoint >= order or a sum
/// beyond 64 bits.
AffinityGraph fold_edges(std::uint32_t order, std::vector<AffinityGraph::Edge> directed);

using Mapping = std::vector<std::uint64_t>;  ///< leaf of each rank

/// Puts every rank that shares a leaf or sits on an excluded one on the free usable leaf that costs
/// least given where its peers are (for mappers that balance rather than inject, or ignore exclusions).
/// Of ranks sharing a leaf the lowest keeps it. Returns the ranks it moved, in increasing order.
std::vector<std::uint32_t> repair_mapping(const AffinityGraph& graph, const TreeTopology& topo, Mapping& mapping);

/// Throws Error::Kind::input unless `mapping` puts `order` ranks on distinct usable leaves of `topo`.
void check_mapping(const Mapping& mapping, std::uint32_t order, const TreeTopology& topo);

/// The placement metrics, computed by mpimon (not TreeMatch's evaluator).
struct PlacementMetrics {
  uint128 cost = 0;                   ///< sum over pairs of w_ij x distance
  std::vector<uint128> crossing;      ///< [l]: traffic between different subtrees of level l
  uint128 busiest_node_off_node = 0;  ///< max over nodes of the traffic leaving that node
};
PlacementMetrics evaluate_mapping(const AffinityGraph& graph, const TreeTopology& topo, const Mapping& mapping);

/// Baselines. packed: rank i on leaf i. cyclic: rank i on node i mod nodes (Open MPI's --map-by
/// node; on a single node, socket i mod sockets). random: a seeded uniform injection.
Mapping packed_mapping(std::uint32_t order, const TreeTopology& topo);
Mapping cyclic_mapping(std::uint32_t order, const TreeTopology& topo);
Mapping random_mapping(std::uint32_t order, const TreeTopology& topo, std::uint64_t seed);

/// Local search under the cost model: each rank tries the leaves of the bottom subtrees where its
/// heaviest peers are (swapping with their occupant, or moving to a free leaf), the best gain
/// first, until no such swap helps or `max_seconds` pass; small trees also get passes over every
/// pair of leaves. Never returns a mapping costlier than `start`. O(non-zeros) memory.
Mapping refine_mapping(const AffinityGraph& graph, const TreeTopology& topo, Mapping start, double max_seconds = 10.0);

/// Global multisection: the ranks split along the hierarchy with METIS, one subtree at a time,
/// each part balanced exactly to its subtree's leaves (filled in order when there are fewer ranks).
/// `seed` is METIS's seed (even: recursive bisection, odd: k-way).
Mapping multisection_mapping(const AffinityGraph& graph, const TreeTopology& topo, std::uint64_t seed);

/// A lower bound on the cost of any mapping of `graph` onto `topo`, computed from the weights and
/// the tree alone: per level, the largest of three bounds on the traffic that must cross between
/// its subtrees (placement_bound.cpp).
uint128 placement_lower_bound(const AffinityGraph& graph, const TreeTopology& topo);

/// Scotch's SCOTCH_graphMap of the graph onto SCOTCH_archTleaf of the same tree (quality strategy,
/// imbalance 0: what `scotch_gmap -cq -b0` computes), repaired into an injection when Scotch puts
/// two ranks on one leaf (the ranks moved in *repaired). Runs in a child process stopped after
/// `seconds` (then: an empty mapping and *timed_out set).
Mapping scotch_mapping(const AffinityGraph& graph, const TreeTopology& topo, double seconds = 1e9,
                       bool* timed_out = nullptr, std::vector<std::uint32_t>* repaired = nullptr);

/// Where the TreeMatch library is: Open MPI 4.1's topo/treematch component exports it.
struct TreeMatchLibrary {
  std::string path;     ///< the shared object that was loaded, or "" when none
  std::string problem;  ///< why it is not available ("" when it is)
};
/// Looks for the library ($MPIMON_TREEMATCH_LIB first, then Open MPI's component directories).
TreeMatchLibrary find_treematch();
/// TreeMatch's mapping (tm_build_tree_from_topology + tm_compute_mapping on the tree-leaf and the
/// folded matrix), computed in a child process because the library exits on errors. Throws
/// Error::Kind::system when the library is missing or fails; stopped after `seconds` (then: an empty
/// mapping and *timed_out set).
Mapping treematch_mapping(const AffinityGraph& graph, const TreeTopology& topo, double seconds = 1e9,
                          bool* timed_out = nullptr);

/// Writers. mapping: "RANK LEAF" lines (the core, with --slots-per-leaf). rankfile: "rank R=HOST slot=SOCKET:CORE"
/// lines; throws Error::Kind::usage when there are fewer hosts than the mapping uses nodes.
void write_mapping(const Mapping& mapping, const TreeTopology& topo, std::ostream& out);
void write_rankfile(const Mapping& mapping, const TreeTopology& topo, const std::vector<std::string>& hosts,
                    std::ostream& out);
/// Reads `--start-mapping`: the "RANK LEAF" lines write_mapping writes (LEAF a core with
/// --slots-per-leaf: the rank takes that core's first free slot), one per rank 0..order-1; blank
/// lines and lines starting with '#' are skipped. Two ranks may name one leaf (repair_mapping moves
/// the extras). Throws Error::Kind::usage naming the file and line for a line that is not two
/// numbers, a rank out of range or given twice, a leaf beyond the tree, and for missing ranks.
Mapping read_mapping(const std::string& path, std::uint32_t order, const TreeTopology& topo);
/// The hosts of an Open MPI hostfile: the first word of each line that is not blank or a comment.
std::vector<std::string> read_hostfile(const std::string& path);

/// A machine as a tree models it: its nodes, the sockets of a node, the cores of a socket (the
/// levels of node_levels and socket_levels; a tree without a level for them has one of each).
struct MachineShape {
  std::uint64_t nodes = 1, sockets = 1, cores = 1;
  [[nodiscard]] std::uint64_t cores_per_node() const { return sockets * cores; }
  /// "2 nodes x 1 socket x 4 cores"
  [[nodiscard]] std::string text() const;
};
MachineShape machine_shape(const TreeTopology& topo);

/// Applying a mapping with Slurm (docs/placement.md, "Under Slurm"): srun --distribution=arbitrary
/// starts rank r on the r-th host of SLURM_HOSTFILE, and --cpu-bind=map_cpu:LIST binds the task of
/// local id i on every node (the node's ranks in rank order) to CPU LIST[i]; one list for all nodes.
struct SlurmPlacement {
  std::vector<std::string> rank_hosts;  ///< the host of each rank: the lines of SLURM_HOSTFILE
  /// The nodes used, each with the CPU (core within the node: socket x cores + core) of its ranks
  /// in local-id order.
  std::vector<std::pair<std::string, std::vector<std::uint64_t>>> node_cpus;
  /// The one map_cpu list that binds every node's ranks as the mapping says, or empty when the
  /// nodes' lists disagree (neither is a prefix of the other).
  std::vector<std::uint64_t> map_cpu;
};
/// Throws Error::Kind::usage when there are fewer hosts than the mapping uses nodes.
SlurmPlacement slurm_placement(const Mapping& mapping, const TreeTopology& topo, const std::vector<std::string>& hosts);
/// The same mapping renumbered within every node by the tree's symmetries (each level's subtrees in
/// the order the node's ranks first reach them): the same cost, and nodes whose ranks are laid out
/// alike get the same CPU list, so that one map_cpu list can serve. Unchanged with --exclude-leaves
/// (a renumbered leaf could be an excluded one).
Mapping renumber_within_nodes(const Mapping& mapping, const TreeTopology& topo);

struct TimeTraffic;  // time_model.hpp
struct TimePrediction;

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
};
/// The methods, in the order of the table.
const std::vector<PlacementMethod>& placement_methods();
/// The method called `name`, or nullptr.
const PlacementMethod* find_placement_method(const std::string& name);
/// "treematch, scotch, ..." for help and error messages.
std::string placement_method_names();

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

/// Runs the methods on `compute` (the traffic the mappings are computed from) and costs them on
/// `evaluate` (the traffic they are judged by). `refine` starts from the cheapest of the methods
/// that seed it (computing them if they were not asked for) under `compute`.
/// With the flows of both (time_model.hpp) and a topology with links, every row also gets the time
/// model's prediction; --objective time needs them (else Error::Kind::usage naming --objective),
/// and adds packed's row when the methods asked for leave it out.
std::vector<MethodResult> place(const AffinityGraph& compute, const AffinityGraph& evaluate, const TreeTopology& topo,
                                const PlacementRequest& request, const TimeTraffic* compute_flows = nullptr,
                                const TimeTraffic* evaluate_flows = nullptr);
/// Predictions this close (relative) count as equal when choosing under objective time.
inline constexpr double kTimeTolerance = 0.01;
/// The row whose mapping is cheapest on the traffic the mappings were computed from (a choice
/// that uses no knowledge of the evaluated traffic); the first of equal rows. With objective time,
/// among the rows predicted on that traffic no slower than the hop-bytes choice (the cheapest row)
/// and packed (the identity; place() adds its row under objective time), the cheapest of those
/// within kTimeTolerance (1 %) of the least: the time model does not separate mappings more finely,
/// so among those the cost decides.
const MethodResult& cheapest(const std::vector<MethodResult>& results, Objective objective = Objective::hop_bytes);

/// The cost model in one sentence, as `mpimon place`'s table and JSON state it.
inline constexpr const char* kPlacementModel =
    "modelled cost: sum over rank pairs of (traffic i->j + j->i) x the cost of their lowest common level, "
    "link costs added from that level down (as TreeMatch and Scotch aggregate a tleaf)";

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

}  // namespace mpimon
