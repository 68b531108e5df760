#pragma once
// The vocabulary of Open MPI's monitoring, shared by what records traffic (the workloads' ledgers)
// and what reads it (the .prof reader, the matrices files): the five traffic classes and the
// 66-bucket message-size histogram (docs/prof-format.md). No dependency: an MPI kernel that keeps
// a ledger needs these words, not the HDF5 reader.

#include <array>
#include <cstddef>
#include <cstdint>
#include <optional>
#include <string_view>

namespace mpimon {

/// The five traffic classes of a .prof file, in the order the HDF5 file lists them.
enum class TrafficClass : std::uint8_t {
  external = 0,  ///< `E`: point-to-point with user tags (all PML traffic when enable = 1)
  internal,      ///< `I`: point-to-point with library-internal (negative) tags, enable >= 2 only
  osc_sent,      ///< `S`: one-sided, data the rank put/accumulated to the peer
  osc_recv,      ///< `R`: one-sided, data the rank fetched from the peer
  coll,          ///< `C`: collective traffic at the API level
};
inline constexpr std::size_t kTrafficClassCount = 5;
inline constexpr std::array<TrafficClass, kTrafficClassCount> kAllTrafficClasses = {
    TrafficClass::external, TrafficClass::internal, TrafficClass::osc_sent, TrafficClass::osc_recv, TrafficClass::coll};

/// "external", "internal", "osc_sent", "osc_recv", "coll": the HDF5 group names.
std::string_view class_name(TrafficClass c);
/// The one-letter tag of a class in .prof files: E I S R C.
char class_letter(TrafficClass c);
/// Parses a class name ("external") or letter ("E"); nullopt when it is neither.
std::optional<TrafficClass> parse_class(std::string_view text);

/// Buckets of Open MPI's message-size histogram: bucket 0 counts empty messages, bucket k >= 1
/// counts messages of [2^(k-1), 2^k) bytes.
inline constexpr std::size_t kHistogramBuckets = 66;
using Histogram = std::array<std::uint64_t, kHistogramBuckets>;

/// Open MPI's histogram bucket of a message of `bytes`: 0 for empty messages, else
/// floor(log2(bytes)) + 1. Written from the documented rule, with integer arithmetic.
std::size_t histogram_bucket(std::uint64_t bytes);

}  // namespace mpimon
