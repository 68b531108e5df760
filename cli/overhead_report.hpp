#pragma once
// Tables of overhead results, shared by `mpimon bench overhead` and `mpimon show`.

#include <optional>
#include <ostream>
#include <string>
#include <vector>

#include "mpimon/overhead.hpp"

namespace mpimon::cli {

/// A number for CSV (9 significant digits); empty when absent or not finite.
std::string csv_number(std::optional<double> v);

/// The paired analysis, one line per cell, for a terminal.
void print_analysis(const std::vector<OverheadCell>& cells);
/// The same as CSV, every column (docs/overhead.md).
void write_analysis_csv(const std::vector<OverheadCell>& cells, std::ostream& out);
/// One line per launch and benchmark: the launch's key, status and sample summary.
void write_launches_csv(const std::vector<LaunchRecord>& launches, std::ostream& out);

}  // namespace mpimon::cli
