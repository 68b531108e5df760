#pragma once
// A workload's own record of what it sent, the ground truth the monitoring is checked
// against (docs/validation.md).
//
// Each rank of a validation workload writes `PREFIX.RANK.ledger`: a header line
// `# mpimon-ledger 1 rank R nprocs N`, then one line per message it sent,
// `CLASS PEER BYTES` (CLASS a .prof letter, PEER a MPI_COMM_WORLD rank), and one line per
// collective call it made as the recording side, `COMM KIND NAME BYTES` (KIND O2A, A2O or A2A,
// NAME the communicator's name, without spaces), and one line per block a root of a collective on
// NAME kept for itself, `LOCAL NAME BYTES`: not communication, so a correct monitoring records
// none of it, but a defect's rule may (docs/defects.md#scatterv-counts-root-itself).

#include <cstdint>
#include <istream>
#include <string>
#include <string_view>
#include <vector>

#include "mpimon/base/traffic.hpp"

namespace mpimon {

struct LedgerEntry {
  TrafficClass traffic_class;
  std::uint32_t peer;
  std::uint64_t bytes;
};

/// The three per-communicator collective records of a `.prof` `D` block.
enum class CollectiveKind { one_to_all, all_to_one, all_to_all };
std::string_view collective_kind_name(CollectiveKind k);  ///< "O2A", "A2O", "A2A"

struct CollectiveCall {
  CollectiveKind kind;
  std::string communicator;
  std::uint64_t bytes;
};

/// A root's own block of a collective on `communicator`: copied locally, never sent.
struct LocalBlock {
  std::string communicator;
  std::uint64_t bytes;
};

class Ledger {
 public:
  Ledger(std::uint32_t rank, std::uint32_t nprocs) : rank_(rank), nprocs_(nprocs) {}

  void record(TrafficClass c, std::uint32_t peer, std::uint64_t bytes) { entries_.push_back({c, peer, bytes}); }
  void record_call(CollectiveKind k, const std::string& communicator, std::uint64_t bytes) {
    calls_.push_back({k, communicator, bytes});
  }
  void record_local(const std::string& communicator, std::uint64_t bytes) { locals_.push_back({communicator, bytes}); }
  /// Writes PREFIX.RANK.ledger; throws mpimon::Error on failure.
  void write(const std::string& prefix) const;
  /// Reads one ledger file; errors name the file and line.
  static Ledger read(const std::string& path);
  /// The same from a stream; `path` names it in errors.
  static Ledger parse(std::istream& in, const std::string& path);

  [[nodiscard]] std::uint32_t rank() const { return rank_; }
  [[nodiscard]] std::uint32_t nprocs() const { return nprocs_; }
  [[nodiscard]] const std::vector<LedgerEntry>& entries() const { return entries_; }
  [[nodiscard]] const std::vector<CollectiveCall>& calls() const { return calls_; }
  [[nodiscard]] const std::vector<LocalBlock>& locals() const { return locals_; }

 private:
  std::uint32_t rank_;
  std::uint32_t nprocs_;
  std::vector<LedgerEntry> entries_;
  std::vector<CollectiveCall> calls_;
  std::vector<LocalBlock> locals_;
};

}  // namespace mpimon
