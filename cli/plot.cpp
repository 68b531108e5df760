// `mpimon plot RESULTS.h5 [-o DIR]`: the overhead and application figures (docs/plots.md), drawn
// by analysis/scripts/plot_overhead.py, and a matrices file's heatmaps (plot_matrices.py), with
// Debian's matplotlib. The sub-commands: plot_collective.cpp, plot_placement.cpp.

#include <filesystem>
#include <iostream>
#include <sstream>

#include "cli_support.hpp"
#include "commands.hpp"
#include "mpimon/base/error.hpp"
#include "mpimon/harness/plots.hpp"
#include "mpimon/matrices/matrix_file.hpp"
#include "mpimon/matrices/matrix_view.hpp"
#include "mpimon/results/apps.hpp"
#include "mpimon/results/arms.hpp"
#include "mpimon/results/overhead.hpp"
#include "mpimon/results/simulated.hpp"

namespace mpimon::cli {

using namespace mpimon::harness;

int plot_results_command(const std::string& name, const std::vector<std::string>& args) {
  Command cmd{name, "FILE.h5 [--dump NAME] [--classes LIST] [--metric bytes|count] [-o DIR]",
              "Draws the figures of an overhead results file (mpimon bench overhead): the Fig. 1 heatmaps\n"
              "of the relative overhead per operation over message size and process count, and the Fig. 2\n"
              "difference per call and per process with its 95 % CI, as PNG and SVG (docs/plots.md); of an\n"
              "application results file (mpimon bench app): Fig. 3, the stencil's overhead against its\n"
              "communication share, median and quartiles per share bin; of a simulation's results file (mpimon\n"
              "simulate): each mapping's SIMULATED time relative to the first beside its modelled cost, as\n"
              "simulated.png and simulated.svg (the figure of mpimon plot placement).\n"
              "Of a matrices file (mpimon-merge): one heatmap per class, one of the classes combined and the\n"
              "PML view (external,internal) beside the PMPI view (external,coll), sender rows, receiver columns,\n"
              "log colour scale, with the summed message-size histogram; above " +
                  std::to_string(kHeatmapMaxSide) +
                  " ranks as blocks of ranks.\n"
                  "For the pattern of a forced collective: " +
                  name + " collective --help."};
  return run_command(cmd, [&] {
    po::options_description options("Options");
    std::string input, dir, dump, classes, metric;
    options.add_options()("output,o", po::value(&dir)->default_value("figures"), "output directory")(
        "dump", po::value(&dump), "matrices file: the dump to draw (default: the only one)")(
        "classes", po::value(&classes), "matrices file: comma-separated classes (default: those with traffic)")(
        "metric", po::value(&metric)->default_value("bytes"), "matrices file: bytes or count")(
        "input", po::value(&input)->required(), "matrices, overhead or application results file");
    po::positional_options_description positional;
    positional.add("input", 1);
    po::variables_map vm;
    if (!parse_options(cmd, args, options, positional, vm)) return kExitOk;
    const std::string format = hdf5_format_of(input);
    parse_metric(metric);  // the script takes the word
    if (format == kMatricesFormat) {
      std::filesystem::create_directories(dir);
      std::ostringstream view;
      write_heatmap_json(MatrixFile(input),
                         {dump, classes.empty() ? std::vector<TrafficClass>{} : parse_classes(classes)}, view);
      const TemporaryFile view_file = script_input(view.str(), "view");
      std::cout << run_plot_script(default_python(), plot_script("plot_matrices.py"),
                                   {view_file.path(), "--output", dir, "--metric", metric}, std::chrono::seconds(600));
      return kExitOk;
    }
    if (!vm["dump"].empty() || !vm["classes"].empty()) throw po::error("--dump and --classes need a matrices file");
    if (format != kOverheadFormat && format != kAppsFormat) {
      raise_error(
          Error::Kind::input, input,
          "not a matrices, overhead or application results file (made by mpimon-merge, mpimon bench overhead or app)");
    }
    if (format == kAppsFormat && is_simulated(AppResults(input).configuration())) {
      const std::string title = simulated_figure_title(input);
      std::filesystem::create_directories(dir);
      std::cout << run_plot_script(
          default_python(), plot_script("plot_placement_measured.py"),
          {"--output", (std::filesystem::path(dir) / "simulated").string(), "--title", title, "--columns", "1", input},
          std::chrono::seconds(600));
      return kExitOk;
    }
    if (format == kAppsFormat) require_stencil_pairs(input);
    std::vector<std::string> script_args{input, dir};
    for (const auto& c : kArmComparisons) {
      script_args.insert(script_args.end(), {"--arm-title", std::string(c.design) + "/" + std::string(c.arm) + "=" +
                                                                std::string(c.title)});
    }
    std::cout << run_plot_script(default_python(), plot_script("plot_overhead.py", "MPIMON_PLOT_OVERHEAD_SCRIPT"),
                                 script_args, std::chrono::seconds(600));
    return kExitOk;
  });
}

}  // namespace mpimon::cli
