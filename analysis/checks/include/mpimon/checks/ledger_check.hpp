#pragma once
// What a run recorded against what its workloads' ledgers say was sent: the comparison the
// validation suite judges by (docs/validation.md). It reads merged matrices files, so it lives
// above both the models (ledgers) and the matrices (the HDF5 reader); the MPI kernels that write
// ledgers link neither this nor HDF5.

#include <array>
#include <string>
#include <vector>

#include "mpimon/matrices/matrix_file.hpp"
#include "mpimon/matrices/prof.hpp"
#include "mpimon/models/ledger.hpp"

namespace mpimon {

/// One disagreement between the monitoring and the ledger.
struct Mismatch {
  std::string what;  ///< e.g. "external count 0->1: recorded 3, sent 2"
};

struct LedgerCheck {
  /// Classes whose matrices must equal the ledger exactly (others are not compared).
  std::vector<TrafficClass> classes = {TrafficClass::external};
  /// Compare each pair's histogram bucket by bucket against the ledger's messages (only
  /// meaningful when the ledger holds every point-to-point message of the run).
  bool histograms = true;
  /// Classes that must hold nothing at all (e.g. internal when the workload calls no collective).
  std::vector<TrafficClass> must_be_empty;
  /// Compare the O2A/A2O/A2A records of every communicator the ledgers name.
  bool communicator_records = true;
};

/// What a run recorded, as the comparison needs it: one matrix pair per class, histograms, and
/// per-communicator records. Built from a merged file, possibly minus a control run.
struct RecordedTraffic {
  std::uint32_t nprocs = 0;
  std::array<SparseMatrix, kTrafficClassCount> count, bytes;
  HistogramTable histograms;
  CommunicatorTable communicators;

  static RecordedTraffic read(const MatrixFile& file, const std::string& dump);
  /// This run minus a control run of the same program that skipped the measured operations,
  /// which removes hidden traffic (communicator creation, window creation), for what `check`
  /// compares; the rest is left as recorded (library-internal traffic, such as osc/pt2pt's, need
  /// not repeat exactly between runs). Throws if the control recorded more on a compared entry.
  [[nodiscard]] RecordedTraffic minus(const RecordedTraffic& control, const LedgerCheck& check) const;
};

/// The monitoring against itself: every pair's histogram must count exactly the pair's external
/// plus internal messages (what the histogram covers, docs/prof-format.md).
std::vector<Mismatch> histogram_consistency(const RecordedTraffic& recorded);

/// Compares what a run recorded with the ledgers of all its ranks.
std::vector<Mismatch> compare_with_ledgers(const RecordedTraffic& recorded, const std::vector<Ledger>& ledgers,
                                           const LedgerCheck& check);
std::vector<Mismatch> compare_with_ledgers(const MatrixFile& file, const std::string& dump,
                                           const std::vector<Ledger>& ledgers, const LedgerCheck& check);

}  // namespace mpimon
