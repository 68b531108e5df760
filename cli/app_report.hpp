#pragma once
// Table 1 of `mpimon bench app` (docs/apps.md), shared by `mpimon bench app` and `mpimon show`.

#include <ostream>
#include <string>
#include <vector>

#include "mpimon/apps.hpp"

namespace mpimon::cli {

/// Sorts rows in the order of `apps` (comma-separated labels, the sweep's order), then by np.
void order_rows(std::vector<AppRow>& rows, const std::string& apps);
/// One line per application and process count: the columns of RR-9038's Table 1, and the
/// overhead's interval against a `threshold` cost (0.05); then a line for each inconclusive row.
void print_app_table(const std::vector<AppRow>& rows, double threshold = 0.05);
/// The same as CSV, every column (docs/apps.md).
void write_app_csv(const std::vector<AppRow>& rows, std::ostream& out);
/// One line per launch: key, status, times, communication share, point-to-point totals of its dumps.
void write_app_launches_csv(const std::vector<AppLaunchRecord>& launches, std::ostream& out);

}  // namespace mpimon::cli
