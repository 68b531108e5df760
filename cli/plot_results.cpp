// `mpimon plot RESULTS.h5 [-o DIR]`: the overhead figures (docs/plots.md), drawn by
// analysis/scripts/plot_overhead.py with Debian's matplotlib.

#include <unistd.h>

#include <cstdlib>
#include <iostream>

#include "cli_support.hpp"
#include "commands.hpp"
#include "mpimon/harness/launch.hpp"
#include "mpimon/apps.hpp"
#include "mpimon/error.hpp"
#include "mpimon/matrix_file.hpp"
#include "mpimon/overhead.hpp"

namespace mpimon::cli {

using namespace mpimon::harness;

namespace {

std::string overhead_script() {
  if (const char* env = std::getenv("MPIMON_PLOT_OVERHEAD_SCRIPT")) return env;
  return std::string(MPIMON_SOURCE_DIR) + "/analysis/scripts/plot_overhead.py";
}

}  // namespace

int plot_results_command(const std::string& name, const std::vector<std::string>& args) {
  Command cmd{name, "RESULTS.h5 [-o DIR]",
              "Draws the figures of an overhead results file (mpimon bench overhead): the Fig. 1 heatmaps\n"
              "of the relative overhead per operation over message size and process count, and the Fig. 2\n"
              "difference per call and per process with its 95 % CI, as PNG and SVG (docs/plots.md); of an\n"
              "application results file (mpimon bench app): Fig. 3, the stencil's overhead against its\n"
              "communication share, median and quartiles per share bin.\n"
              "For the pattern of a forced collective: " + name + " collective --help."};
  return run_command(cmd, [&] {
    po::options_description options("Options");
    std::string input, dir;
    options.add_options()("output,o", po::value(&dir)->default_value("figures"), "output directory")(
        "input", po::value(&input)->required(), "overhead or application results file");
    po::positional_options_description positional;
    positional.add("input", 1);
    po::variables_map vm;
    if (!parse_options(cmd, args, options, positional, vm)) return kExitOk;
    const std::string format = hdf5_format_of(input);
    if (format != kOverheadFormat && format != kAppsFormat) {
      raise_error(Error::Kind::input, input,
                  "not an overhead or application results file (made by mpimon bench overhead or app)");
    }
    const std::string python = access("/usr/bin/python3", X_OK) == 0 ? "/usr/bin/python3" : "python3";
    LaunchResult r = run_process({python, overhead_script(), input, dir}, {}, std::chrono::seconds(600));
    std::cout << r.output;
    if (r.exit_code != 0) {
      raise_error(Error::Kind::system, overhead_script(),
                  "plotting failed (exit code " + std::to_string(r.exit_code) +
                      "); it needs Debian's python3-matplotlib and python3-h5py (ci/install-deps.sh)");
    }
    return kExitOk;
  });
}

}  // namespace mpimon::cli
