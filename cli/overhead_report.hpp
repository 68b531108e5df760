#pragma once
// Tables of overhead results, shared by `mpimon bench overhead` and `mpimon show`.

#include <optional>
#include <ostream>
#include <string>
#include <vector>

#include "mpimon/results/csv.hpp"
#include "mpimon/results/overhead.hpp"

namespace mpimon::cli {

/// A relative overhead's verdict against `threshold` (0.05) in a few words: "< 5 %", "> 5 %",
/// "> 0" (a cost, its size open), "inconclusive", "-" (no interval).
std::string cost_words(CostVerdict verdict, double threshold);
/// One line for each inconclusive row: LABEL, its interval, and the pairs needed for +- threshold / 2.
void print_inconclusive(const std::string& label, const PairedAnalysis& a, double threshold);
/// The line itself: "LABEL: inconclusive: the 95 % CI [..] spans SPANS; about N pairs would narrow
/// it to +-HALF_WIDTH (from the observed spread, sd X % of the BASE time)".
void print_undecided(const std::string& label, const PairedAnalysis& a, const std::string& spans,
                     std::optional<std::size_t> pairs_needed, double half_width, const std::string& base);

/// The paired analysis, one line per cell, for a terminal.
void print_analysis(const std::vector<OverheadCell>& cells);
/// What the interleaved design could not use, and why: failed interleaved launches (no MPI_T
/// switch in this library) and benchmarks whose bookkeeping failed (the switch did not switch).
void print_interleaving(const std::vector<LaunchRecord>& launches, const std::string& design);
/// The same as CSV, every column (docs/overhead.md).
void write_analysis_csv(const std::vector<OverheadCell>& cells, std::ostream& out);

}  // namespace mpimon::cli
