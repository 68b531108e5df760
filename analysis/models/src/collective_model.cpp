// Names, parameters and the traffic container of the collective model; the trees are in
// collective_model_trees.cpp, the algorithms in collective_model_algorithms.cpp.

#include <charconv>
#include <climits>
#include <sstream>

#include "mpimon/base/error.hpp"
#include "mpimon/base/names.hpp"
#include "mpimon/models/collective_model.hpp"

namespace mpimon {

namespace {

// Open MPI 4.1's enums (coll_tuned_<op>_decision.c); 5.0 keeps their numbers and adds allgather
// sparbit.
constexpr CollectiveAlgorithm kBcast[] = {
    {1, "basic_linear", true},          {2, "chain", true},    {3, "pipeline", true}, {4, "split_binary_tree", true},
    {5, "binary_tree", true},           {6, "binomial", true}, {7, "knomial", true},  {8, "scatter_allgather", true},
    {9, "scatter_allgather_ring", true}};
constexpr CollectiveAlgorithm kReduce[] = {
    {1, "linear", true},   {2, "chain", true},           {3, "pipeline", true},    {4, "binary", true},
    {5, "binomial", true}, {6, "in-order_binary", true}, {7, "rabenseifner", true}};
constexpr CollectiveAlgorithm kAllreduce[] = {{1, "basic_linear", true},       {2, "nonoverlapping", true},
                                              {3, "recursive_doubling", true}, {4, "ring", true},
                                              {5, "segmented_ring", true},     {6, "rabenseifner", true}};
constexpr CollectiveAlgorithm kAlltoall[] = {{1, "linear", true},
                                             {2, "pairwise", true},
                                             {3, "modified_bruck", true},
                                             {4, "linear_sync", true},
                                             {5, "two_proc", true}};
constexpr CollectiveAlgorithm kAllgather[] = {
    {1, "linear", true},   {2, "bruck", true},    {3, "recursive_doubling", true},       {4, "ring", true},
    {5, "neighbor", true}, {6, "two_proc", true}, {7, "sparbit", true, OmpiSeries::v5_0}};
constexpr CollectiveAlgorithm kGather[] = {{1, "basic_linear", true}, {2, "binomial", true}, {3, "linear_sync", true}};
constexpr CollectiveAlgorithm kScatter[] = {{1, "basic_linear", true}, {2, "binomial", true}, {3, "linear_nb", true}};
constexpr CollectiveAlgorithm kBarrier[] = {
    {1, "linear", true}, {2, "double_ring", true}, {3, "recursive_doubling", true},
    {4, "bruck", true},  {5, "two_proc", true},    {6, "tree", true}};

std::string list_algorithms(CollectiveOp op) {
  std::string text;
  for (const auto& a : collective_algorithms(op)) {
    if (!text.empty()) text += ", ";
    text += std::to_string(a.number) + " " + std::string(a.name);
    if (a.since != OmpiSeries::v4_1) text += " (from " + std::string(series_name(a.since)) + ")";
  }
  return text;
}

[[noreturn]] void reject(const std::string& what, const std::string& reason) {
  raise_error(Error::Kind::input, what, reason);
}

constexpr std::array<Named<CollectiveOp>, 8> kCollectiveOpNames{{{CollectiveOp::bcast, "bcast"},
                                                                 {CollectiveOp::reduce, "reduce"},
                                                                 {CollectiveOp::allreduce, "allreduce"},
                                                                 {CollectiveOp::alltoall, "alltoall"},
                                                                 {CollectiveOp::allgather, "allgather"},
                                                                 {CollectiveOp::gather, "gather"},
                                                                 {CollectiveOp::scatter, "scatter"},
                                                                 {CollectiveOp::barrier, "barrier"}}};

}  // namespace

std::string_view op_name(CollectiveOp op) { return to_name(kCollectiveOpNames, op); }

CollectiveOp parse_op(std::string_view text) {
  if (auto op = from_name(kCollectiveOpNames, text)) return *op;
  reject("--op", "unknown operation '" + std::string(text) +
                     "' (bcast, reduce, allreduce, alltoall, allgather, gather, scatter, barrier)");
}

std::string_view series_name(OmpiSeries series) { return series == OmpiSeries::v4_1 ? "4.1" : "5.0"; }

OmpiSeries parse_series(std::string_view text, const std::string& option) {
  // A release ("5.0.7") names its series; anything else is refused, not guessed.
  for (OmpiSeries s : {OmpiSeries::v4_1, OmpiSeries::v5_0}) {
    const std::string_view name = series_name(s);
    if (text == name || (text.starts_with(name) && text.size() > name.size() && text[name.size()] == '.')) return s;
  }
  reject(option, "'" + std::string(text) + "' is not an Open MPI series the model knows (4.1, 5.0)");
}

bool has_root(CollectiveOp op) {
  return op == CollectiveOp::bcast || op == CollectiveOp::reduce || op == CollectiveOp::gather ||
         op == CollectiveOp::scatter;
}

std::span<const CollectiveAlgorithm> collective_algorithms(CollectiveOp op) {
  switch (op) {
    case CollectiveOp::bcast:
      return kBcast;
    case CollectiveOp::reduce:
      return kReduce;
    case CollectiveOp::allreduce:
      return kAllreduce;
    case CollectiveOp::alltoall:
      return kAlltoall;
    case CollectiveOp::allgather:
      return kAllgather;
    case CollectiveOp::gather:
      return kGather;
    case CollectiveOp::scatter:
      return kScatter;
    case CollectiveOp::barrier:
      return kBarrier;
  }
  return {};
}

int parse_algorithm(CollectiveOp op, std::string_view text) {
  int number = 0;
  auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), number);
  const bool numeric = ec == std::errc() && end == text.data() + text.size();
  for (const auto& a : collective_algorithms(op)) {
    if ((numeric && a.number == number) || a.name == text) return a.number;
  }
  reject("--algorithm", "'" + std::string(text) + "' is not a " + std::string(op_name(op)) +
                            " algorithm of Open MPI's coll/tuned (" + list_algorithms(op) + ")");
}

bool algorithm_available(CollectiveOp op, int number, OmpiSeries series) {
  for (const auto& a : collective_algorithms(op)) {
    if (a.number == number) return a.since <= series;
  }
  return false;
}

std::string_view algorithm_name(CollectiveOp op, int number) {
  for (const auto& a : collective_algorithms(op)) {
    if (a.number == number) return a.name;
  }
  reject("--algorithm",
         std::to_string(number) + " is not a " + std::string(op_name(op)) + " algorithm (" + list_algorithms(op) + ")");
}

void check_spec(const CollectiveSpec& spec) {
  const std::string_view name = algorithm_name(spec.op, spec.algorithm);  // throws when unknown
  bool modelled = false;
  for (const auto& a : collective_algorithms(spec.op))
    modelled = modelled || (a.number == spec.algorithm && a.modelled);
  if (!modelled) {
    reject("--algorithm", std::string(op_name(spec.op)) + " " + std::string(name) +
                              " is an Open MPI algorithm the model does not cover (docs/collectives.md)");
  }
  if (!algorithm_available(spec.op, spec.algorithm, spec.ompi_series)) {
    reject("--algorithm", std::string(op_name(spec.op)) + " " + std::string(name) + " is not in Open MPI " +
                              std::string(series_name(spec.ompi_series)) + "'s coll/tuned (--open-mpi)");
  }
  if (spec.nprocs < 1 || spec.nprocs > (1U << 20)) reject("--np", "must be between 1 and 1048576");
  if (has_root(spec.op) && spec.root >= spec.nprocs) {
    reject("--root", std::to_string(spec.root) + " is not a rank of " + std::to_string(spec.nprocs) + " processes");
  }
  if (spec.count > INT_MAX) reject("--count", "exceeds INT_MAX, the largest count MPI's C interface takes");
  if (spec.type_size < 1 || spec.type_size > INT_MAX) reject("--type-size", "must be between 1 and INT_MAX");
  if (spec.segment_size > INT_MAX) reject("--segsize", "exceeds INT_MAX, the largest value of the MCA parameter");
  if (spec.tree_fanout < 1 || spec.tree_fanout > INT_MAX) reject("--tree-fanout", "must be at least 1");
  if (spec.chain_fanout > INT_MAX) reject("--chain-fanout", "exceeds INT_MAX");
  if (spec.knomial_radix < 2 || spec.knomial_radix > INT_MAX)
    reject("--radix", "the k-nomial radix must be at least 2");
  if (spec.monitoring_mode != 1 && spec.monitoring_mode != 2) reject("--mode", "pml_monitoring_enable must be 1 or 2");
  if (name == "two_proc" && spec.nprocs > 2) {
    reject("--algorithm", "two_proc works on 2 processes only (Open MPI returns MPI_ERR_UNSUPPORTED_OPERATION)");
  }
}

void EdgeTraffic::add(TrafficClass c, std::uint32_t src, std::uint32_t dst, std::uint64_t bytes,
                      std::uint64_t messages) {
  if (messages == 0) return;
  add_totals(c, src, dst, {bytes * messages, messages});
}

void EdgeTraffic::add_totals(TrafficClass c, std::uint32_t src, std::uint32_t dst, const TrafficLoad& load) {
  if (load.messages == 0 && load.bytes == 0) return;
  TrafficLoad& slot = edges_[TrafficEdge{c, src, dst}];
  slot.bytes += load.bytes;
  slot.messages += load.messages;
}

TrafficLoad EdgeTraffic::at(const TrafficEdge& e) const {
  auto it = edges_.find(e);
  return it == edges_.end() ? TrafficLoad{} : it->second;
}

TrafficLoad EdgeTraffic::total() const {
  TrafficLoad sum;
  for (const auto& [edge, load] : edges_) {
    sum.bytes += load.bytes;
    sum.messages += load.messages;
  }
  return sum;
}

namespace {
std::string describe(const TrafficEdge& e) {
  return std::string(1, class_letter(e.traffic_class)) + " " + std::to_string(e.src) + "->" + std::to_string(e.dst);
}
}  // namespace

EdgeTraffic subtract(const EdgeTraffic& run, const EdgeTraffic& baseline) {
  for (const auto& [edge, base] : baseline.edges()) {
    TrafficLoad measured = run.at(edge);
    if (measured.bytes < base.bytes || measured.messages < base.messages) {
      reject("baseline", "edge " + describe(edge) + " carries more in the control run (" +
                             std::to_string(base.messages) + " messages, " + std::to_string(base.bytes) +
                             " bytes) than in the measured run (" + std::to_string(measured.messages) + ", " +
                             std::to_string(measured.bytes) + "): the two runs are not comparable");
    }
  }
  EdgeTraffic difference;
  for (const auto& [edge, load] : run.edges()) {
    TrafficLoad base = baseline.at(edge);
    difference.add_totals(edge.traffic_class, edge.src, edge.dst,
                          {load.bytes - base.bytes, load.messages - base.messages});
  }
  return difference;
}

std::vector<EdgeDifference> compare_traffic(const EdgeTraffic& predicted, const EdgeTraffic& recorded) {
  std::map<TrafficEdge, EdgeDifference> differences;
  for (const auto& [edge, load] : predicted.edges()) {
    if (recorded.at(edge) != load) differences[edge] = {edge, load, recorded.at(edge)};
  }
  for (const auto& [edge, load] : recorded.edges()) {
    if (predicted.at(edge) != load) differences[edge] = {edge, predicted.at(edge), load};
  }
  std::vector<EdgeDifference> list;
  for (auto& [edge, d] : differences) list.push_back(d);
  return list;
}

std::string format_traffic(const EdgeTraffic& traffic) {
  std::ostringstream out;
  for (const auto& [edge, load] : traffic.edges()) {
    out << class_letter(edge.traffic_class) << '\t' << edge.src << '\t' << edge.dst << '\t' << load.bytes << '\t'
        << load.messages << '\n';
  }
  return out.str();
}

std::uint64_t segment_elements(std::uint64_t segment_size, std::uint64_t type_size, std::uint64_t count) {
  if (segment_size < type_size || segment_size >= type_size * count) return count;
  std::uint64_t elements = segment_size / type_size;
  // Open MPI rounds to the nearest whole element, down on a tie.
  if (segment_size - elements * type_size > type_size / 2) ++elements;
  return elements;
}

std::uint64_t block_elements(std::uint64_t count, std::uint64_t blocks, std::uint64_t index) {
  return count / blocks + (index < count % blocks ? 1 : 0);
}

}  // namespace mpimon
