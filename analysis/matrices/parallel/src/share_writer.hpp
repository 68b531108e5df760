#pragma once
// The parallel merge's writer: every process adds its share of the files to its own rows, and all
// write the one output file together with parallel HDF5, each its own rows and non-zeros.

#include <cstdint>
#include <functional>
#include <limits>
#include <string>
#include <vector>

#include "exchange.hpp"
#include "merge_rows.hpp"
#include "mpimon/base/output.hpp"
#include "mpimon/matrices/merge.hpp"

namespace mpimon::parallel_detail {

/// This process's files of one dump (a contiguous run of them in rank order, possibly none).
struct DumpShare {
  merge_detail::DumpRows rows;
  std::vector<std::uint32_t> histogram_pairs;  ///< (rank, peer) of each histogram
  merge_detail::SparseHistograms histograms;   ///< ends count from this share's first bucket
  /// The file (numbered in plan order) that first gave MPI_COMM_WORLD's size, if any.
  std::uint64_t first_world_file = std::numeric_limits<std::uint64_t>::max();
  /// The error that stopped this process's reading, in this dump, and its file's number.
  Outcome failure;
  std::uint64_t failed_file = 0;
};

/// Reads and parses files [first, last) of the plan into one share per dump; the first bad file
/// stops the reading (its error is kept in its dump's share). `progress(done)` after each file.
std::vector<DumpShare> read_share(const std::vector<DumpInputs>& dumps, std::size_t first, std::size_t last,
                                  const std::function<void(std::size_t done)>& progress);

/// Collective. Rank 0 checks each dump as a whole from every process's summary of its share (the
/// size of MPI_COMM_WORLD, ranks and peers inside it, and each share's own error), one summary at a
/// time in the order the serial merge meets the files, and numbers the communicators; then every
/// process writes its rows into `temporary`, rank 0's `out` for `output` (null elsewhere), which rank 0 then
/// commits. Returns the summaries on rank 0 (elsewhere: empty); on an input error, or one of rank 0
/// alone after the collective writing, every process throws it (and rank 0's `out`, never
/// committed, removes the temporary). A failure during the collective writing ends the merge at
/// once (abort_merge).
std::vector<DumpSummary> write_shares(const std::vector<DumpInputs>& dumps, std::vector<DumpShare>& shares,
                                      const std::string& temporary, const std::string& output, AtomicOutput* out,
                                      const MergeOptions& options);

}  // namespace mpimon::parallel_detail
