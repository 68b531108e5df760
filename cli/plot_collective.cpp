// `mpimon plot collective`: a forced collective's pattern next to its PMPI-level view
// (docs/collectives.md), drawn by plot_heatmaps.py with Debian's matplotlib.

#include <iostream>

#include "cli_support.hpp"
#include "commands.hpp"
#include "mpimon/harness/plots.hpp"

namespace mpimon::cli {

using namespace mpimon::harness;

int plot_collective_command(const std::string& name, const std::vector<std::string>& args) {
  Command cmd{name, "--op OP --algorithm ALG --np N [--root R] --count C ... -o PREFIX",
              "Draws, as heatmaps of who sends to whom (sender rows, receiver columns), the point-to-point\n"
              "messages the forced algorithm ALG makes for one call, as Open MPI's PML monitoring records them\n"
              "(the model 'mpimon validate collective' checks), next to what a PMPI-level tool can attribute\n"
              "to the same call from its arguments. Writes PREFIX.png and PREFIX.svg with Python and matplotlib\n"
              "(Debian: python3-matplotlib); --table prints the numbers instead."};
  return run_command(cmd, [&] {
    po::options_description options("Options");
    CollectiveOptions values;
    add_collective_options(options, values);
    std::string output, metric, python, script;
    options.add_options()("output,o", po::value(&output), "prefix of the .png and .svg files")(
        "metric", po::value(&metric), "bytes (default; messages for barrier) or count")(
        "table", "print the table of both views and draw nothing")(
        "python", po::value(&python)->default_value(default_python()), "Python interpreter")(
        "script",
        po::value(&script)->default_value(plot_script("plot_heatmaps.py", "MPIMON_PLOT_SCRIPT"),
                                          "plot_heatmaps.py of mpimon's data"),
        "the plotting script");
    po::variables_map vm;
    if (!parse_options(cmd, args, options, {}, vm)) return kExitOk;
    const CollectiveSpec spec = collective_spec(values, vm);
    const Metric m = !metric.empty()                    ? parse_metric(metric)
                     : spec.op == CollectiveOp::barrier ? Metric::count
                                                        : Metric::bytes;
    const std::string table = collective_heatmap_table(spec, m);
    if (vm.count("table")) {
      std::cout << table;
      return kExitOk;
    }
    if (output.empty()) throw po::error("the option '--output' is required (or give --table)");
    const TemporaryFile input = script_input(table, "plot");
    std::cout << run_plot_script(
        python, script, {"--input", input.path(), "--output", output, "--title", collective_heatmap_title(spec)},
        std::chrono::seconds(120));
    return kExitOk;
  });
}

}  // namespace mpimon::cli
