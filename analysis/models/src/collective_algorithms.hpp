#pragma once
// What the algorithm files of the collective model share (private to analysis/models): the
// recorder of one call's messages, classed as the monitoring classes them, small ring and tree
// helpers, and the algorithms one collective borrows from another (Open MPI's composite
// algorithms call bcast, reduce and gather through the communicator).

#include <bit>
#include <cstdint>
#include <string>

#include "mpimon/base/error.hpp"
#include "mpimon/models/collective_model.hpp"

namespace mpimon::collective_detail {

/// Records the messages of one call, classed as the monitoring classes them.
class Messages {
 public:
  explicit Messages(const CollectiveSpec& spec) : spec_(spec) {}

  /// A message sent with a collective's internal (negative) tag.
  void internal(std::uint32_t src, std::uint32_t dst, std::uint64_t bytes, std::uint64_t messages = 1) {
    traffic_.add(spec_.monitoring_mode >= 2 ? TrafficClass::internal : TrafficClass::external, src, dst, bytes,
                 messages);
  }
  /// A message sent through a persistent request started with the PML's start: Open MPI 4.1's
  /// monitoring records it with tag 1, i.e. as external, whatever its real tag.
  void persistent(std::uint32_t src, std::uint32_t dst, std::uint64_t bytes) {
    const bool as_internal = spec_.ideal_monitoring && spec_.monitoring_mode >= 2;
    traffic_.add(as_internal ? TrafficClass::internal : TrafficClass::external, src, dst, bytes);
  }
  /// `count` elements sent in segments of `per_segment` elements: the last segment is shorter.
  void segmented(std::uint32_t src, std::uint32_t dst, std::uint64_t count, std::uint64_t per_segment) {
    const std::uint64_t segments = (count + per_segment - 1) / per_segment;
    internal(src, dst, per_segment * spec_.type_size, segments - 1);
    internal(src, dst, (count - (segments - 1) * per_segment) * spec_.type_size);
  }
  /// Internal messages given by their totals on one pair.
  void merge_totals(std::uint32_t src, std::uint32_t dst, const TrafficLoad& load) {
    traffic_.add_totals(spec_.monitoring_mode >= 2 ? TrafficClass::internal : TrafficClass::external, src, dst, load);
  }
  /// The messages of a collective this one calls (already classed).
  void merge(const EdgeTraffic& nested) {
    for (const auto& [edge, load] : nested.edges()) traffic_.add_totals(edge.traffic_class, edge.src, edge.dst, load);
  }
  [[nodiscard]] const CollectiveSpec& spec() const { return spec_; }
  [[nodiscard]] std::uint32_t size() const { return spec_.nprocs; }
  [[nodiscard]] std::uint64_t bytes(std::uint64_t elements) const { return elements * spec_.type_size; }
  EdgeTraffic take() { return std::move(traffic_); }

 private:
  const CollectiveSpec& spec_;
  EdgeTraffic traffic_;
};

inline std::uint32_t ring_next(std::uint32_t r, std::uint32_t p) { return (r + 1) % p; }
/// (r + offset) mod p for a possibly negative offset.
inline std::uint32_t ring_at(std::uint32_t r, std::int64_t offset, std::uint32_t p) {
  const std::int64_t n = p;
  return static_cast<std::uint32_t>(((static_cast<std::int64_t>(r) + offset) % n + n) % n);
}
/// The largest power of two not above p.
inline std::uint32_t floor_power_of_two(std::uint32_t p) { return std::bit_floor(p); }

[[noreturn]] inline void not_modelled(const std::string& what) {
  raise_error(Error::Kind::input, "model", what + " (docs/collectives.md lists what the model covers)");
}

// Trees (collective_bcast_reduce.cpp): every edge of the tree carries the whole buffer, segmented.
void tree_down(Messages& m, const ProcessTree& tree, std::uint64_t per_segment);
void tree_up(Messages& m, const ProcessTree& tree, std::uint64_t per_segment);
std::uint64_t spec_segment(const CollectiveSpec& s);
void bcast_linear(Messages& m, std::uint32_t root);
void reduce_linear(Messages& m, std::uint32_t root);
void allreduce_rabenseifner(Messages& m);

// The fixed decisions and nested calls (collective_model_algorithms.cpp).
int fixed_bcast_algorithm(std::uint32_t p, std::uint64_t bytes);
int fixed_reduce_algorithm(std::uint32_t p, std::uint64_t bytes);
int fixed_gather_algorithm(std::uint32_t p, std::uint64_t bytes);
EdgeTraffic nested_call(const CollectiveSpec& outer, CollectiveOp op, std::uint64_t count, int algorithm);

// One function per operation, each in the file of its family.
void predict_bcast(Messages& m, int algorithm);
void predict_reduce(Messages& m, int algorithm);
void predict_allreduce(Messages& m, int algorithm);
void predict_alltoall(Messages& m, int algorithm);
void predict_allgather(Messages& m, int algorithm);
void predict_gather(Messages& m, int algorithm);
void predict_scatter(Messages& m, int algorithm);
void predict_barrier(Messages& m, int algorithm);

}  // namespace mpimon::collective_detail
