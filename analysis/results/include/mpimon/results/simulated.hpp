#pragma once
// Simulated placements (`mpimon simulate`, docs/simulate.md) in the results format of `mpimon bench
// placement` (mpimon-apps): one launch per mapping, its arm named A, B, C, ... in the order the
// rankfiles were given, its time read off SimGrid's simulated clock; the configuration says
// `kind=simulated`, `arms` and, per arm X, arm_X (the rankfile), arm_X_name, modelled_X and
// traffic_X (the check of its simulated traffic against the recording), written and read here
// alone. A simulated mapping is one row; simulated_columns() drives its table, CSV, JSON and the
// file's /mappings table.

#include <cstdint>
#include <map>
#include <optional>
#include <ostream>
#include <string>
#include <vector>

#include "mpimon/results/apps.hpp"
#include "mpimon/results/columns.hpp"

namespace mpimon {

/// The configuration value of `kind` in a simulated results file.
inline constexpr const char* kSimulatedKind = "simulated";

/// Whether a results file's configuration is a simulation's (kind=simulated).
bool is_simulated(const std::map<std::string, std::string>& configuration);

/// The arm of the i-th mapping (0-based): A, B, ..., Z, AA, AB, ...
std::string mapping_arm(std::size_t index);

/// One row of a simulation: a mapping and its simulated time.
struct SimulatedMapping {
  std::string arm, name, status;
  std::string rankfile;            ///< the rankfile's path, as given to mpimon simulate
  double seconds = 0;              ///< the time compared (the workload's report, or the simulated clock)
  std::optional<double> ratio;     ///< seconds / the first mapping's (absent when either failed)
  std::string time_source;         ///< "workload", "reported" or "simulated" (AppLaunchRecord::time_source)
  double simulated_seconds = 0;    ///< SimGrid's clock when the simulation ended
  double wall_seconds = 0;         ///< how long the simulation took
  std::optional<double> modelled;  ///< the modelled cost of the mapping (absent: no tree or traffic)
  std::string traffic;             ///< the traffic check's verdict ("" when not checked)
};

/// The columns of a simulated mapping: `mpimon simulate`'s table (and `mpimon show`'s), the CSV of
/// `mpimon show --csv`, the JSON of `mpimon simulate --json` and the /mappings table of the file.
/// The files keep their names: /mappings and the CSV say seconds, ratio, simulated_clock_s, wall_s;
/// the JSON simulated_seconds, ratio_to_first, simulated_clock_seconds, wall_seconds.
const std::vector<Column<SimulatedMapping>>& simulated_columns();

/// Writes the configuration of a simulation's mappings: kind, arms (A,B,...) and per arm arm_X
/// ("rankfile PATH:\n" and the rankfile's text), arm_X_name, modelled_X (when known) and traffic_X
/// (when checked); `rankfile_texts` in the order of `mappings`.
void describe_simulated_mappings(std::map<std::string, std::string>& configuration,
                                 const std::vector<SimulatedMapping>& mappings,
                                 const std::vector<std::string>& rankfile_texts);

/// The rows of a simulated results file, in the order of its arms (configuration `arms`); an arm
/// without a launch has status "not run". Throws Error::Kind::format on a file that is not simulated.
std::vector<SimulatedMapping> simulated_mappings(const std::map<std::string, std::string>& configuration,
                                                 const std::vector<AppLaunchRecord>& launches);

/// Writes a simulation's results file whole (atomically: nothing at `path` until it is complete):
/// `configuration`, the launches in order, the /mappings table derived from them.
void write_simulation_results(const std::string& path, const std::map<std::string, std::string>& configuration,
                              const std::vector<AppLaunchRecord>& launches);

/// Replaces the /mappings table of a results file with `rows`.
void write_simulated_mappings(const std::string& path, const std::vector<SimulatedMapping>& rows);

/// `mpimon simulate --json`: {"mappings": [{"rankfile", "arm", "name", "status", "simulated_seconds",
/// "ratio_to_first", "modelled_cost", "time_source", "simulated_clock_seconds", "wall_seconds",
/// "traffic_check"}, ...]} in the order of `rows` (null where a value is unknown).
std::string simulated_mappings_json(const std::vector<SimulatedMapping>& rows);

/// `mpimon show --csv` of a simulated results file: the rows as CSV.
void write_simulated_csv(const std::vector<SimulatedMapping>& rows, std::ostream& out);

/// `mpimon simulate`'s table (docs/simulate.md), which `mpimon show` prints again: a line naming
/// `label` and np, one row per mapping (its simulated time, the ratio to the first mapping's, its
/// modelled cost, the wall time, the status), what the columns mean, and the traffic checks.
void write_simulated_table(const std::vector<SimulatedMapping>& rows, const std::string& label, std::uint32_t np,
                           std::ostream& out);

}  // namespace mpimon
