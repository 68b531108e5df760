#pragma once
// The time model of a mapping (docs/placement.md, "The time model"): what the recorded run's
// communication would take on the tree's links under a mapping, from the bytes and messages per
// directed pair and the size histogram, a rate and a latency per level, and the contention of the
// flows that share a link. Beside it, a lower bound over every mapping and a local search that
// minimises the prediction. The links themselves: links.hpp.
//
// The network: below each level l of the tree, every child subtree has one full-duplex link to its
// parent (TreeTopology::links[l]: rate and latency of that link). A message between two leaves
// whose lowest common level is c goes up the links of the sender's subtrees at levels c..L-1 and
// down those of the receiver's: 2 (L - c) links, its latency the sum of theirs.
//
// The prediction: T = B + L, where
//   B = max over links and directions of (bytes through it) / its rate: every flow through a link
//       shares it for the whole run, so the busiest link bounds the phase (fair sharing);
//   L = max over ranks of the latency its sends pay: each message its path's latency, and a message
//       of at least kEagerLimit bytes (the histogram says how many) one more round trip for the
//       rendezvous.
// A level whose rate is unknown (0) is free: no time for its links.

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "mpimon/matrices/matrix.hpp"
#include "mpimon/matrices/matrix_file.hpp"
#include "mpimon/placement/mapping.hpp"
#include "mpimon/placement/topology.hpp"

namespace mpimon {

/// The largest message Open MPI's TCP transport sends eagerly (btl_tcp_eager_limit, 64 KiB): a
/// larger one waits for the receiver's acknowledgement first (one more round trip).
inline constexpr std::uint64_t kEagerLimit = 65536;

/// The directed traffic the time model reads: per pair with traffic, bytes, messages, and how many
/// of those messages are at least kEagerLimit bytes (the rendezvous ones).
struct TimeTraffic {
  std::uint32_t order = 0;
  struct Flow {
    std::uint32_t from, to;
    std::uint64_t bytes, messages, rendezvous;
  };
  std::vector<Flow> flows;
  /// How the rendezvous messages were counted: "histogram" or "mean size" (no histogram).
  std::string rendezvous_source;
};

/// The flows of the matrices `bytes` and `messages` (square, same order; a pair with messages but
/// no bytes, or bytes but no message, counts as it is). With `histograms` (the dump's size
/// histograms; they cover external and internal traffic, so pass them only for those classes) the
/// rendezvous messages of a pair are its messages in buckets of at least kEagerLimit bytes (at
/// most its messages); without, all of a pair's messages when its mean size is at least
/// kEagerLimit, else none. Throws Error::Kind::input when the matrices are not square or differ in order.
TimeTraffic time_traffic(const SparseMatrix& bytes, const SparseMatrix& messages,
                         const HistogramTable* histograms = nullptr);

/// The flows of a dump's classes: their bytes and messages summed, with the dump's histograms when
/// the classes are exactly external and internal (what the histograms cover), else by mean size.
TimeTraffic read_time_traffic(const MatrixFile& file, const std::string& dump,
                              const std::vector<TrafficClass>& classes);

/// What the model predicts for one mapping.
struct TimePrediction {
  double seconds = 0;            ///< bandwidth_seconds + latency_seconds
  double bandwidth_seconds = 0;  ///< the busiest link's bytes over its rate
  double latency_seconds = 0;    ///< the largest latency a rank's sends pay
  /// The busiest link: below level `busiest_level`, the link of subtree `busiest_subtree` (subtrees
  /// of that level's children numbered 0.. in tree order), leaving it (up) or entering it.
  std::uint32_t busiest_level = 0;
  std::uint64_t busiest_subtree = 0;
  bool busiest_up = true;
  double busiest_bytes = 0;
  std::uint32_t latency_rank = 0;  ///< the rank whose sends pay the most latency
};
/// Throws Error::Kind::input unless `mapping` puts every rank on its own usable leaf.
TimePrediction predict_time(const TimeTraffic& traffic, const TreeTopology& topo, const Mapping& mapping);

/// The bandwidth part again, with the order the traffic implies: a rank forwards what it received.
/// A flow starts once every flow into its sender from another strongly connected component of the
/// traffic has arrived (a reduction tree: level after level; the flows of one component, a halo
/// exchange, start together); the flows under way share each link max-min fairly; the time is when
/// the last one arrives. The one-phase prediction cannot tell two transfers at different steps of a
/// tree from two at once. No latency; flows without bytes (a barrier's messages) left out, order
/// included. nullopt when the traffic has no order (no flow between two
/// components: every flow at once, the one-phase prediction's own case) and above kOrderedFlowLimit
/// flows (an event simulation: its cost grows with the flows squared).
inline constexpr std::size_t kOrderedFlowLimit = 4096;
std::optional<double> ordered_bandwidth_seconds(const TimeTraffic& traffic, const TreeTopology& topo,
                                                const Mapping& mapping);

/// A lower bound on predict_time(...).seconds over every mapping: a bandwidth part (per level, the
/// traffic that must cross between its subtrees, from placement_lower_bound's cut bounds, spread
/// evenly over the subtrees that can hold ranks; and per rank, what it sends or receives beyond
/// what fits in its subtree) plus a latency part (per rank, its messages on the cheapest paths
/// one rank alone could have).
struct TimeBound {
  double seconds = 0, bandwidth_seconds = 0, latency_seconds = 0;
};
TimeBound time_lower_bound(const TimeTraffic& traffic, const TreeTopology& topo);

/// Local search on the predicted time: ranks move (or swap) to the leaves of their heaviest peers'
/// subtrees and, on trees of up to 256 leaves, to every leaf, taking the move that lowers the sum
/// of every link's and rank's time raised to a high power (which the busiest terms dominate: ranks
/// leave the busiest links first). It descends from each of `starts`, then from the best mapping
/// perturbed by a few random swaps, until 50 + ranks perturbations in a row find nothing faster or
/// `max_seconds` pass; returns the mapping with the least predicted time met, never one slower than
/// the fastest start.
Mapping refine_time_mapping(const TimeTraffic& traffic, const TreeTopology& topo, const std::vector<Mapping>& starts,
                            double max_seconds = 10.0);

/// The time model in one sentence, as the table and the JSON state it.
inline constexpr const char* kTimeModel =
    "predicted communication time (modelled): the busiest link's bytes over its rate (flows sharing a link share "
    "its rate) plus the largest latency one rank's sends pay (per message its path's latency, one more round trip "
    "from 64 KiB: rendezvous)";

}  // namespace mpimon
