#pragma once
// The options `mpimon bench app` and `mpimon bench placement` share: what they run (built-in
// workloads or a command after --), how it is launched, and the results file (docs/apps.md).

#include <cstdint>
#include <string>
#include <vector>

#include "cli_support.hpp"
#include "mpimon/harness/app_sweep.hpp"

namespace mpimon::cli {

struct AppOptions {
  std::string workloads, classes, computes, compute, grid, name, program;
  std::uint32_t iterations = 0, vars = 0, points = 0;
};

/// The arguments before "--" and the command after it (empty without "--").
std::pair<std::vector<std::string>, std::vector<std::string>> split_command(const std::vector<std::string>& args);

/// Adds the workload options (--workload, --class, --iterations, --grid, --vars, --points,
/// --compute, --compute-sweep, --workload-program, --name) and the sweep's (--workdir, --pairs,
/// --seed, --launcher, --mca, --timeout, -o, --resume, --time-regex) to `options`.
void add_app_options(po::options_description& options, AppOptions& o, harness::AppSweep& s,
                     const std::string& default_output);

/// Checks the shared options and sets s.apps: the built-in workloads named (`default_workloads`
/// when neither workloads nor a command are given, "" to require one), or the command. Throws
/// po::error on a bad combination.
void apply_app_options(AppOptions o, const po::variables_map& vm, const std::vector<std::string>& command,
                       harness::AppSweep& s, const std::string& default_workloads);

}  // namespace mpimon::cli
