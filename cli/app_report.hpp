#pragma once
// Table 1 of `mpimon bench app` (docs/apps.md), shared by `mpimon bench app` and `mpimon show`.

#include <ostream>
#include <string>
#include <vector>

#include "mpimon/results/apps.hpp"
#include "mpimon/results/simulated.hpp"

namespace mpimon::cli {

/// One line per application and process count: the columns of RR-9038's Table 1, and the
/// overhead's interval against a `threshold` cost (0.05); then a line for each inconclusive row.
void print_app_table(const std::vector<AppRow>& rows, double threshold = 0.05);
/// `mpimon bench placement`'s table (docs/placement.md): per application and process count, the
/// mean times of arms.base and arms.other, other - base with its 95 % CI, relative, the t-test's
/// and Wilcoxon's p, and which arm is faster when the interval excludes 0; then a line for each
/// inconclusive row.
void print_placement_table(const std::vector<AppRow>& rows, const ArmPair& arms);
/// `mpimon simulate`'s table (docs/simulate.md): one row per mapping, its simulated time, the ratio
/// to the first mapping's, its modelled cost and the traffic check; `mpimon show` prints it again.
void print_simulated_table(const std::vector<SimulatedMapping>& rows, const std::string& label, std::uint32_t np);
/// The rows of print_simulated_table as CSV (mpimon show --csv of a simulated results file).
void write_simulated_csv(const std::vector<SimulatedMapping>& rows, std::ostream& out);
/// The same as CSV, every column (docs/apps.md); the time columns named after the arms.
void write_app_csv(const std::vector<AppRow>& rows, std::ostream& out, const ArmPair& arms = {});

}  // namespace mpimon::cli
