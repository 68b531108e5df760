#pragma once
// Predicts, exactly, the point-to-point messages Open MPI's `coll/tuned` collectives
// decompose into, as PML monitoring records them (docs/collectives.md).
//
// The model is written from the algorithms of Open MPI 4.1's and 5.0's `ompi/mca/coll/base/` as they
// are selected with `coll_tuned_use_dynamic_rules 1` and `coll_tuned_<op>_algorithm N`: their
// process trees, segmentation, block splits and fall-backs. For each directed pair of
// MPI_COMM_WORLD ranks it gives the messages and payload bytes the sender's monitoring counts,
// and whether they are counted as external (`E`) or internal (`I`). No MPI here: `mpimon
// validate collective` checks the model against Open MPI under monitoring.

#include <cstdint>
#include <map>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "mpimon/base/traffic.hpp"

namespace mpimon {

/// The blocking collectives the model covers.
enum class CollectiveOp : std::uint8_t { bcast, reduce, allreduce, alltoall, allgather, gather, scatter, barrier };
inline constexpr CollectiveOp kAllCollectiveOps[] = {
    CollectiveOp::bcast,     CollectiveOp::reduce, CollectiveOp::allreduce, CollectiveOp::alltoall,
    CollectiveOp::allgather, CollectiveOp::gather, CollectiveOp::scatter,   CollectiveOp::barrier};

/// "bcast", "reduce", ...: also the `<op>` of Open MPI's `coll_tuned_<op>_algorithm`.
std::string_view op_name(CollectiveOp op);
/// Parses an operation name; throws an input error listing the valid ones.
CollectiveOp parse_op(std::string_view text);
/// Whether the operation has a root (bcast, reduce, gather, scatter).
bool has_root(CollectiveOp op);

/// The Open MPI release series whose coll/tuned the model follows. The algorithm numbers of
/// 4.1 are kept in 5.0, which adds allgather `sparbit` (7); everything else the model covers is
/// unchanged between 4.1.4 and 5.0.7 (docs/collectives.md).
enum class OmpiSeries : std::uint8_t { v4_1, v5_0 };
/// "4.1", "5.0".
std::string_view series_name(OmpiSeries series);
/// Parses "4.1" or "5.0" (a release such as "5.0.7" gives its series); throws an input error
/// naming `option` otherwise.
OmpiSeries parse_series(std::string_view text, const std::string& option = "--open-mpi");

/// One algorithm of `coll_tuned_<op>_algorithm`, with Open MPI's number and enum name.
struct CollectiveAlgorithm {
  int number;
  std::string_view name;                ///< e.g. "split_binary_tree", as ompi_info lists it
  bool modelled;                        ///< false: Open MPI has it, the model does not (predicting it throws)
  OmpiSeries since = OmpiSeries::v4_1;  ///< the first series whose coll/tuned has it
};
/// Every algorithm Open MPI 4.1 or 5.0 offers for `op` (number 0, "ignore", excluded), by number.
std::span<const CollectiveAlgorithm> collective_algorithms(CollectiveOp op);
/// Whether Open MPI's `series` has algorithm `number` of `op`.
bool algorithm_available(CollectiveOp op, int number, OmpiSeries series);
/// Parses an algorithm name or number; throws an input error listing the valid ones.
int parse_algorithm(CollectiveOp op, std::string_view text);
/// The name of algorithm `number` of `op`; throws for an unknown number.
std::string_view algorithm_name(CollectiveOp op, int number);

/// A collective call and the coll/tuned parameters in force.
struct CollectiveSpec {
  CollectiveOp op = CollectiveOp::bcast;
  int algorithm = 1;            ///< Open MPI's number (parse_algorithm)
  std::uint32_t nprocs = 2;     ///< size of MPI_COMM_WORLD, on which the call is made
  std::uint32_t root = 0;       ///< for rooted operations
  std::uint64_t count = 1;      ///< elements as passed to the call (per rank for alltoall, allgather, gather, scatter)
  std::uint64_t type_size = 1;  ///< bytes per element (MPI_Type_size)
  std::uint64_t segment_size = 0;   ///< coll_tuned_<op>_algorithm_segmentsize, bytes; 0: no segmentation
  std::uint32_t tree_fanout = 4;    ///< coll_tuned_<op>_algorithm_tree_fanout (no modelled algorithm uses it)
  std::uint32_t chain_fanout = 4;   ///< coll_tuned_<op>_algorithm_chain_fanout (bcast and reduce chain)
  std::uint32_t knomial_radix = 4;  ///< coll_tuned_bcast_algorithm_knomial_radix
  int monitoring_mode = 2;          ///< pml_monitoring_enable: 1 puts every message in E
  /// Predict what a monitoring without the persistent-collective defect would record
  /// (docs/defects.md): collective messages sent through persistent requests as I, not E.
  bool ideal_monitoring = false;
  OmpiSeries ompi_series = OmpiSeries::v4_1;  ///< the Open MPI whose coll/tuned runs the call
};

/// Checks a spec against what Open MPI accepts and the model covers; throws an input error
/// naming the offending parameter.
void check_spec(const CollectiveSpec& spec);

/// A directed pair of one class: the sender, the receiver (MPI_COMM_WORLD ranks).
struct TrafficEdge {
  TrafficClass traffic_class;
  std::uint32_t src;
  std::uint32_t dst;
  auto operator<=>(const TrafficEdge&) const = default;
};
struct TrafficLoad {
  std::uint64_t bytes = 0;
  std::uint64_t messages = 0;
  bool operator==(const TrafficLoad&) const = default;
};

/// Point-to-point traffic per directed pair and class, ordered by class (E before I), sender,
/// receiver: what the model predicts and what a dump recorded are both held this way.
class EdgeTraffic {
 public:
  /// Adds `messages` messages of `bytes` bytes each.
  void add(TrafficClass c, std::uint32_t src, std::uint32_t dst, std::uint64_t bytes, std::uint64_t messages = 1);
  /// Adds totals (`bytes` in all) to a pair.
  void add_totals(TrafficClass c, std::uint32_t src, std::uint32_t dst, const TrafficLoad& load);
  [[nodiscard]] const std::map<TrafficEdge, TrafficLoad>& edges() const { return edges_; }
  [[nodiscard]] TrafficLoad at(const TrafficEdge& e) const;
  [[nodiscard]] TrafficLoad total() const;
  bool operator==(const EdgeTraffic&) const = default;

 private:
  std::map<TrafficEdge, TrafficLoad> edges_;
};

/// The traffic of one run minus that of a baseline run; throws an input error naming the first
/// pair on which the baseline has more, the two runs then not being comparable.
EdgeTraffic subtract(const EdgeTraffic& run, const EdgeTraffic& baseline);

/// One pair on which two traffics differ.
struct EdgeDifference {
  TrafficEdge edge;
  TrafficLoad predicted;
  TrafficLoad recorded;
};
std::vector<EdgeDifference> compare_traffic(const EdgeTraffic& predicted, const EdgeTraffic& recorded);

/// The point-to-point traffic the monitoring records for the call. P = 1 and zero counts send
/// nothing (Open MPI's API and coll/self return first). Throws an input error for specs
/// check_spec rejects.
EdgeTraffic predict_collective(const CollectiveSpec& spec);

/// What a PMPI-level tool can attribute to the same call from its arguments alone: the data each
/// process hands to each other process (class coll, like the monitoring's API-level `C` lines):
/// root to all for bcast and scatter, all to root for reduce and gather, all to all for
/// allreduce, allgather and alltoall (count x type size per pair), an empty message per pair for
/// barrier. The decomposition into point-to-point messages is invisible at that level.
EdgeTraffic api_level_traffic(const CollectiveSpec& spec);

/// One line per edge: `CLASS<TAB>SRC<TAB>DST<TAB>BYTES<TAB>COUNT\n`, in EdgeTraffic's order.
std::string format_traffic(const EdgeTraffic& traffic);

// ---- The building blocks, exposed for unit tests and docs/collectives.md. ----

/// A process tree over communicator ranks: children[r] are the ranks r sends to (in a
/// broadcast) or receives from (in a reduction), in Open MPI's order.
struct ProcessTree {
  std::uint32_t root = 0;
  std::vector<std::vector<std::uint32_t>> children;
  /// The parent of each rank; the root's is itself.
  [[nodiscard]] std::vector<std::uint32_t> parents() const;
};

/// k-ary tree filled level by level on virtual ranks v = (rank - root) mod P: the nodes of level
/// L are [(k^L - 1)/(k - 1), (k^(L+1) - 1)/(k - 1)), and node v of level L has children
/// v + k^L * i, i = 1..k. With k = 2 the binary tree of bcast `binary_tree`,
/// `split_binary_tree` and reduce `binary`.
ProcessTree kary_tree(std::uint32_t fanout, std::uint32_t nprocs, std::uint32_t root);
/// Binomial tree of bcast `binomial`: v's parent is v without its highest set bit; its children
/// are v + 2^j for every 2^j greater than v.
ProcessTree binomial_tree(std::uint32_t nprocs, std::uint32_t root);
/// In-order binomial tree of reduce `binomial`, gather and scatter `binomial`: v's parent is v
/// without its lowest set bit; its children are v + 2^j for every 2^j below that bit.
ProcessTree in_order_binomial_tree(std::uint32_t nprocs, std::uint32_t root);
/// k-nomial tree of bcast `knomial`: v's parent is v with its lowest non-zero base-k digit
/// cleared; its children add d * k^j (d = 1..k-1) at each digit position j below that digit,
/// highest position first.
ProcessTree knomial_tree(std::uint32_t radix, std::uint32_t nprocs, std::uint32_t root);
/// The root feeds min(F, P-1) chains (F < 1 counts as 1) cutting virtual ranks 1..P-1 into
/// consecutive runs, the first (P-1) mod F of them one longer when F does not divide P-1; each
/// chain is a pipeline v -> v+1. F = 1 is bcast/reduce `pipeline`.
ProcessTree chain_tree(std::uint32_t fanout, std::uint32_t nprocs, std::uint32_t root);
/// In-order binary tree of reduce `in-order_binary`, always rooted at P-1: the node owning ranks
/// [lo, hi] (s = hi-lo+1 of them) is hi; for s > 2 its children are hi-1, owning the upper part
/// [lo + s/2, hi-1], and lo + s/2 - 1, owning [lo, lo + s/2 - 1]; for s = 2, lo is a leaf below it.
ProcessTree in_order_binary_tree(std::uint32_t nprocs);

/// Elements per segment from a segment size in bytes (Open MPI's COLL_BASE_COMPUTED_SEGCOUNT):
/// `count` unless type_size <= segment_size < type_size * count, then segment_size / type_size,
/// rounded up when the remainder exceeds half an element.
std::uint64_t segment_elements(std::uint64_t segment_size, std::uint64_t type_size, std::uint64_t count);

/// Splits `count` elements into `blocks` blocks, the first count mod blocks of them one element
/// larger (Open MPI's COLL_BASE_COMPUTE_BLOCKCOUNT); returns the size of block `index`.
std::uint64_t block_elements(std::uint64_t count, std::uint64_t blocks, std::uint64_t index);

}  // namespace mpimon
