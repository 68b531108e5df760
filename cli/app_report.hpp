#pragma once
// Table 1 of `mpimon bench app` (docs/apps.md), shared by `mpimon bench app` and `mpimon show`.

#include <ostream>
#include <vector>

#include "mpimon/apps.hpp"

namespace mpimon::cli {

/// One line per application and process count: the columns of RR-9038's Table 1.
void print_app_table(const std::vector<AppRow>& rows);
/// The same as CSV, every column (docs/apps.md).
void write_app_csv(const std::vector<AppRow>& rows, std::ostream& out);

}  // namespace mpimon::cli
