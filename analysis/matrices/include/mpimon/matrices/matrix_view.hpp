#pragma once
// What a heatmap of a matrices file shows (docs/plots.md): per class and metric the matrix,
// reduced to blocks of ranks above a size, the summed message-size histogram and the top talkers,
// as one JSON document that analysis/scripts/plot_matrices.py and make_report.py draw.

#include <cstdint>
#include <ostream>
#include <string>
#include <vector>

#include "mpimon/matrices/matrix.hpp"
#include "mpimon/matrices/matrix_file.hpp"

namespace mpimon {

/// Above this many ranks a heatmap shows blocks of ranks: at most this many rows and columns.
inline constexpr std::uint32_t kHeatmapMaxSide = 256;

/// The smallest block size b with ceil(nprocs / b) <= max_side (1 when nprocs <= max_side).
std::uint32_t heatmap_block_size(std::uint32_t nprocs, std::uint32_t max_side = kHeatmapMaxSide);

/// The sums of `m` over blocks of `block` x `block` ranks (the last block may be smaller), read
/// from the CSR non-zeros only: the memory is that of the result, never N x N.
SparseMatrix block_reduce(const SparseMatrix& m, std::uint32_t block);

struct Talker {
  std::uint32_t from, to;
  std::uint64_t bytes, messages;
};

/// The `limit` pairs with the most bytes in `bytes`, most first (ties: more messages, then lower
/// ranks); memory bounded by `limit`, whatever the number of pairs (`mpimon show` at 10^5 ranks).
std::vector<Talker> top_talkers(const SparseMatrix& bytes, const SparseMatrix& count, std::size_t limit);

/// The point-to-point (external + internal) top talkers of a dump.
std::vector<Talker> top_talkers(const MatrixFile& file, const std::string& dump, std::size_t limit);

/// The 66 buckets of all pairs' histograms of a dump, summed (they cover external + internal).
Histogram summed_histogram(const MatrixFile& file, const std::string& dump);

struct HeatmapRequest {
  std::string dump;                   ///< "" = the file's only dump
  std::vector<TrafficClass> classes;  ///< empty = the classes with traffic
  std::uint32_t max_side = kHeatmapMaxSide;
  std::size_t top = 20;
};

/// Writes the JSON view of one dump (format in docs/plots.md): provenance, block size, per class
/// ("combined" = the chosen classes summed, and the views "pml" = external + internal and "pmpi" =
/// external + coll) both metrics as [row, column, value] triples, histogram, talkers, communicators.
void write_heatmap_json(const MatrixFile& file, const HeatmapRequest& request, std::ostream& out);

}  // namespace mpimon
