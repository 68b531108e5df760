#pragma once
// The application harness of `mpimon bench app`: pairs of launches of an application (a built-in
// workload or any MPI command), monitoring off and on in random order within each pair, each
// launch appended to an application results file as it ends (docs/apps.md).

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "mpimon/apps.hpp"
#include "mpimon/harness/launch_pairs.hpp"

namespace mpimon::harness {

/// One application of the sweep: its label and the program line that runs it.
struct App {
  std::string label;
  std::vector<std::string> argv;  ///< program and arguments (after the launcher's)
  bool workload = false;          ///< a built-in workload: time and comm share from its report
  bool square_np = false;         ///< runs only on a square number of processes (bt)
};

struct AppSweep {
  HarnessSettings h;
  std::vector<App> apps;
  std::vector<std::uint32_t> nps;
  std::uint32_t pairs = 10;
  std::string output, csv, workdir;
  /// A command's own reported time (a regular expression, its first group the seconds) instead of
  /// the wall time of its launch; "" for the wall time.
  std::string time_regex;
  bool resume = false;
};

/// Whether n is a perfect square (bt runs only on square process counts).
bool is_square(std::uint32_t n);

/// This build's mpimon-workload, or "mpimon-workload" to be looked up in PATH.
std::string default_workload_program();

/// The built-in workloads the options name: one per workload and class, and for the stencil one
/// per compute value. Throws a usage Error on an unknown workload.
std::vector<App> workload_apps(const std::string& program, const std::vector<std::string>& workloads,
                               const std::vector<std::string>& classes, const std::vector<std::string>& common,
                               const std::vector<std::string>& stencil, const std::vector<std::string>& computes);

/// The sweep's provenance, recorded in the results file's /configuration.
std::map<std::string, std::string> configuration_of(const AppSweep& s);

struct Planned {
  const App* app;
  AppLaunchKey key;
  std::uint32_t position;
};

/// Every launch of the sweep, arms shuffled within each pair from the seed.
std::vector<Planned> plan(const AppSweep& s);

struct Failure {
  std::string launch, status;
};

/// Runs the planned launches not yet in `results`; stops at the first that fails (a configuration
/// that fails once fails every time; --resume retries). Returns the failure, if any.
std::optional<Failure> run_sweep(const AppSweep& s, AppResults& results, const std::string& name);

}  // namespace mpimon::harness
