#pragma once
// Reader for the per-rank `NAME.RANK.prof` files written by Open MPI's monitoring.
//
// The format is documented in docs/prof-format.md. A file holds what one process (its "rank",
// in MPI_COMM_WORLD numbering) sent to each peer, in five classes, plus per-communicator
// collective records.

#include <array>
#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "mpimon/base/traffic.hpp"

namespace mpimon {

/// One `E`, `I`, `S`, `R` or `C` line.
struct PairRecord {
  TrafficClass traffic_class;
  std::uint32_t peer;   ///< MPI_COMM_WORLD rank of the peer
  std::uint64_t bytes;  ///< payload bytes sent to the peer
  std::uint64_t count;  ///< messages (or one-sided operations) sent to the peer
  std::size_t line;     ///< 1-based line number in the file
};

/// The size histogram of all point-to-point messages (E and I together) to one peer.
struct PeerHistogram {
  std::uint32_t peer;
  Histogram buckets;
  std::size_t line;  ///< 1-based line number of the line that carried it
};

/// Bytes and calls of one collective pattern on one communicator.
struct CollectiveTotals {
  std::uint64_t bytes = 0;
  std::uint64_t calls = 0;  ///< Open MPI labels this "msgs sent"; it counts collective calls
};

/// A `D` line and the `O2A`, `A2O`, `A2A` lines that follow it.
struct CommunicatorRecord {
  std::string name;                    ///< may contain spaces
  std::vector<std::uint32_t> members;  ///< world ranks, in communicator rank order
  CollectiveTotals one_to_all;
  CollectiveTotals all_to_one;
  CollectiveTotals all_to_all;
  std::size_t line;
};

/// Everything one .prof file says.
struct RankProfile {
  std::uint32_t rank = 0;
  std::vector<PairRecord> pairs;  ///< in file order
  std::vector<PeerHistogram> histograms;
  std::vector<CommunicatorRecord> communicators;
  /// Size of MPI_COMM_WORLD, from its `D` line, when the file has one.
  std::optional<std::uint32_t> world_size;
  bool has_internal_lines = false;  ///< any `I` line: internal and external were distinguished
};

/// Parses the text of a .prof file written by `rank`. `path` is used in error messages only.
/// Throws mpimon::Error (input) naming path:line and the reason on any malformed content.
RankProfile parse_prof(std::string_view text, const std::string& path, std::uint32_t rank);

/// Reads and parses a file; errors name the file.
RankProfile read_prof_file(const std::string& path, std::uint32_t rank);

/// Reads many .prof files in a row, as fast as it can: the file buffer and the storage of the
/// RankProfile it fills are reused from file to file, and the `procs:` list of a communicator that
/// repeats the previous file's list byte for byte (MPI_COMM_WORLD is in every file: 88 KB per file
/// at 16384 ranks) is not parsed again. Results and errors are those of read_prof_file. One
/// reader per thread.
class ProfReader {
 public:
  ProfReader();
  ~ProfReader();
  ProfReader(const ProfReader&) = delete;
  ProfReader& operator=(const ProfReader&) = delete;

  /// Reads and parses `path` into `out`, replacing its content.
  void read(const std::string& path, std::uint32_t rank, RankProfile& out);
  /// Parses `text` into `out`, replacing its content; `path` is used in error messages only.
  void parse(std::string_view text, const std::string& path, std::uint32_t rank, RankProfile& out);

  /// The last large `procs:` list parsed, with its members (an implementation detail of parse).
  struct MemberCache {
    std::string text;
    std::vector<std::uint32_t> members;
    std::uint32_t largest = 0;  ///< the largest member, checked against the world size per file
  };

 private:
  std::string buffer_;
  MemberCache members_;
};

/// The text of a .prof file holding `profile` (docs/prof-format.md), the format the reader reads:
/// the three section headers, its pair lines by class in section order (each line's histogram when
/// `histograms` has one for the peer of its E line), and its communicator blocks. For what writes
/// dumps that Open MPI did not (mpimon simulate's traffic); parse_prof reads it back as it was.
std::string format_prof(const RankProfile& profile);

/// What a file name says: `dir/phase_1.3.prof` is rank 3 of dump `phase_1`.
struct ProfName {
  std::string dump;
  std::uint32_t rank;
};
/// Splits a path into dump name and rank; throws an input error for names that do not end in
/// `.RANK.prof`.
ProfName parse_prof_name(const std::string& path);
/// The same without throwing: nothing for a name that is not `NAME.RANK.prof`.
std::optional<ProfName> try_parse_prof_name(const std::string& path);

/// The order of dump names: runs of digits compare as numbers, so `phase_2` comes before
/// `phase_10` (the order a user expects of phases), the rest compares as text.
struct DumpNameLess {
  bool operator()(const std::string& a, const std::string& b) const;
};

}  // namespace mpimon
