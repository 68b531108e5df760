#pragma once
/// \file
/// \brief A workload's own record of what it sent, the ground truth the monitoring is checked
/// against (docs/validation.md).
///
/// Each rank of a validation workload writes `PREFIX.RANK.ledger`: a header line
/// `# mpimon-ledger 1 rank R nprocs N`, then one line per message it sent:
/// `CLASS PEER BYTES` (CLASS a .prof letter, PEER a MPI_COMM_WORLD rank).

#include <cstdint>
#include <string>
#include <vector>

#include "mpimon/matrix_file.hpp"
#include "mpimon/prof.hpp"

namespace mpimon {

struct LedgerEntry {
  TrafficClass traffic_class;
  std::uint32_t peer;
  std::uint64_t bytes;
};

class Ledger {
 public:
  Ledger(std::uint32_t rank, std::uint32_t nprocs) : rank_(rank), nprocs_(nprocs) {}

  void record(TrafficClass c, std::uint32_t peer, std::uint64_t bytes) { entries_.push_back({c, peer, bytes}); }
  /// Writes PREFIX.RANK.ledger; throws mpimon::Error on failure.
  void write(const std::string& prefix) const;
  /// Reads one ledger file; errors name the file and line.
  static Ledger read(const std::string& path);

  [[nodiscard]] std::uint32_t rank() const { return rank_; }
  [[nodiscard]] std::uint32_t nprocs() const { return nprocs_; }
  [[nodiscard]] const std::vector<LedgerEntry>& entries() const { return entries_; }

 private:
  std::uint32_t rank_;
  std::uint32_t nprocs_;
  std::vector<LedgerEntry> entries_;
};

/// Open MPI's histogram bucket of a message of `bytes`: 0 for empty messages, else
/// floor(log2(bytes)) + 1. Written from the documented rule, with integer arithmetic.
std::size_t histogram_bucket(std::uint64_t bytes);

/// One disagreement between the monitoring and the ledger.
struct Mismatch {
  std::string what;  ///< e.g. "external count 0->1: recorded 3, sent 2"
};

struct LedgerCheck {
  /// Classes whose matrices must equal the ledger exactly (others are not compared).
  std::vector<TrafficClass> classes = {TrafficClass::external};
  /// Compare each pair's histogram bucket by bucket against the ledger's messages.
  bool histograms = true;
  /// Also require that the listed classes hold nothing the ledger does not have (always true)
  /// and that these classes are empty everywhere (e.g. internal with enable = 1).
  std::vector<TrafficClass> must_be_empty;
};

/// Compares a merged dump with the ledgers of all its ranks.
std::vector<Mismatch> compare_with_ledgers(const MatrixFile& file, const std::string& dump,
                                           const std::vector<Ledger>& ledgers, const LedgerCheck& check);

}  // namespace mpimon
