#pragma once
/// \file
/// \brief Exports of merged matrices to other tools' formats (docs/exports.md).

#include <ostream>
#include <string>
#include <vector>

#include "mpimon/matrix_file.hpp"

namespace mpimon {

/// Sum of the chosen classes' matrices for one metric.
SparseMatrix sum_classes(const MatrixFile& file, const std::string& dump, const std::vector<TrafficClass>& classes,
                         Metric metric);

/// TreeMatch's affinity matrix: N lines of N single-space-separated integers, entry (i, j) =
/// traffic i -> j plus traffic j -> i (both directions summed, so no rounding), diagonal 0.
/// Throws if an entry reaches 2^53, beyond which TreeMatch's doubles lose integers.
void write_treematch(const SparseMatrix& directed, std::ostream& out);

/// Writes the files Open MPI's `profile2mat` writes for `DIR/DUMP.prof` (the concatenation of the
/// dump's per-rank files), byte for byte; returns their paths in the order profile2mat writes them.
std::vector<std::string> write_profile2mat(const MatrixFile& file, const std::string& dump, const std::string& dir);

}  // namespace mpimon
