#pragma once
// Simulated placements (`mpimon simulate`, docs/simulate.md) in the results format of `mpimon bench
// placement` (mpimon-apps): one launch per mapping, its arm named A, B, C, ... in the order the
// rankfiles were given, its time read off SimGrid's simulated clock; the configuration says
// `kind=simulated` and, per arm X, arm_X (the rankfile), arm_X_name, modelled_X and traffic_X (the
// check of its simulated traffic against the recording). The /mappings table is derived from those.

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "mpimon/results/apps.hpp"

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
  double seconds = 0;              ///< the time compared (the workload's report, or the simulated clock)
  std::optional<double> ratio;     ///< seconds / the first mapping's (absent when either failed)
  double simulated_seconds = 0;    ///< SimGrid's clock when the simulation ended
  double wall_seconds = 0;         ///< how long the simulation took
  std::optional<double> modelled;  ///< the modelled cost of the mapping (absent: no tree or traffic)
  std::string traffic;             ///< the traffic check's verdict ("" when not checked)
};

/// The rows of a simulated results file, in the order of its arms (configuration `arms`); an arm
/// without a launch has status "not run". Throws Error::Kind::format on a file that is not simulated.
std::vector<SimulatedMapping> simulated_mappings(const std::map<std::string, std::string>& configuration,
                                                 const std::vector<AppLaunchRecord>& launches);

/// `mpimon simulate --json`: {"mappings": [{"rankfile", "arm", "name", "status", "simulated_seconds",
/// "ratio_to_first", "modelled_cost", "time_source", "simulated_clock_seconds", "wall_seconds",
/// "traffic_check"}, ...]} in the order of `rows` (null where a value is unknown), as a file holds it;
/// `rankfiles` and `time_sources` are the rows' own.
std::string simulated_mappings_json(const std::vector<SimulatedMapping>& rows,
                                    const std::vector<std::string>& rankfiles,
                                    const std::vector<std::string>& time_sources);

/// Replaces the /mappings table of a results file with `rows`.
void write_simulated_mappings(const std::string& path, const std::vector<SimulatedMapping>& rows);

}  // namespace mpimon
