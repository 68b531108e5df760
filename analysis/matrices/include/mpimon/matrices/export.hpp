#pragma once
// Exports of merged matrices to other tools' formats (docs/exports.md).

#include <cstdint>
#include <ostream>
#include <string>
#include <vector>

#include "mpimon/matrices/matrix_file.hpp"

namespace mpimon {

/// Sum of the chosen classes' matrices for one metric.
SparseMatrix sum_classes(const MatrixFile& file, const std::string& dump, const std::vector<TrafficClass>& classes,
                         Metric metric);

/// The symmetric weighted communication graph of the chosen classes and metric: entry (i, j) =
/// traffic i -> j plus traffic j -> i, no diagonal, no zero entries. O(non-zeros + N) time and
/// memory: the graph for placement at any scale (`mpimon export scotch|metis`, and the commands
/// that place processes); walk it with for_each_nonzero (mpimon/matrix.hpp).
SparseMatrix communication_graph(const MatrixFile& file, const std::string& dump,
                                 const std::vector<TrafficClass>& classes, Metric metric);

/// Above this many processes the dense exports (`treematch`, `mat`) refuse unless forced: their
/// output grows as N^2 (at least 2 bytes per entry) whatever the traffic (docs/exports.md).
inline constexpr std::uint32_t kDenseExportLimit = 8192;

/// Throws a usage error when a dense export of an N x N matrix exceeds kDenseExportLimit,
/// saying how big the output would be and what to use instead. `what` names the export.
void check_dense_export_size(std::uint32_t n, const std::string& what);

/// Graph weights for tools that hold them in 32-bit integers (Scotch's and METIS's default builds):
/// exact when the sum of all arc weights is at most 2^29, else every weight is multiplied by the
/// same factor (2^29 / sum) and rounded up, so no edge vanishes. `factor` is 1 when exact.
struct GraphWeights {
  std::vector<std::uint64_t> values;  ///< in the order of the graph's stored entries
  double factor = 1.0;
};
GraphWeights graph_weights_for_int32_tools(const SparseMatrix& graph);
/// The same rule for one weight, given the sum of all arc weights (each edge counted in both
/// directions): what libscotch gets from `mpimon place` equals what `mpimon export scotch` writes.
double int32_tools_factor(uint128 arc_total);
std::uint64_t int32_tools_weight(std::uint64_t value, double factor);

/// Scotch's source-graph format (.grf, version 0): base 0, arc weights, one line per vertex:
/// degree, then (weight, neighbour) for every neighbour.
void write_scotch_graph(const SparseMatrix& graph, const GraphWeights& weights, std::ostream& out);

/// METIS's graph format (gpmetis): header "N EDGES 001", then for vertex i (1-based) its
/// neighbours (1-based), each followed by its weight; a '%' comment line records the scale factor.
void write_metis_graph(const SparseMatrix& graph, const GraphWeights& weights, std::ostream& out);

/// TreeMatch's affinity matrix: N lines of N single-space-separated integers, entry (i, j) =
/// traffic i -> j plus traffic j -> i (both directions summed, so no rounding), diagonal 0.
/// Throws if an entry reaches 2^53, beyond which TreeMatch's doubles lose integers.
void write_treematch(const SparseMatrix& directed, std::ostream& out);

/// Every directed pair that exchanged a message, as CSV: a header "from,to,bytes,messages", then one
/// line per pair (`bytes` and `messages` the same classes' matrices), by sender then receiver; a
/// pair of empty messages has bytes 0. O(non-zeros + N): at any scale (`mpimon export pairs`).
void write_pairs_csv(const SparseMatrix& bytes, const SparseMatrix& messages, std::ostream& out);

/// Writes the files Open MPI's `profile2mat` writes for `DIR/DUMP.prof` (the concatenation of the
/// dump's per-rank files), byte for byte; returns their paths in the order profile2mat writes them.
std::vector<std::string> write_profile2mat(const MatrixFile& file, const std::string& dump, const std::string& dir);

}  // namespace mpimon
