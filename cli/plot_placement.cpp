// `mpimon plot placement`: the modelled costs of `mpimon place --json` reports as grouped bars
// (plot_placement.py), or measured placements, the compact results of `mpimon bench placement`
// with the modelled costs beside (plot_placement_measured.py); docs/placement.md.

#include <unistd.h>

#include <iostream>

#include "cli_support.hpp"
#include "commands.hpp"
#include "mpimon/base/error.hpp"
#include "mpimon/harness/plots.hpp"
#include "mpimon/results/apps.hpp"
#include "mpimon/results/simulated.hpp"

namespace mpimon::cli {

using namespace mpimon::harness;

int plot_placement_command(const std::string& name, const std::vector<std::string>& args) {
  Command cmd{name, "REPORT.json... | RESULTS.h5... -o PREFIX [--title TEXT] [--columns N]",
              "Draws reports of mpimon place --json as grouped bars: each method's MODELLED cost relative to\n"
              "packed, per report (random: mean and standard deviation), as PREFIX.png and PREFIX.svg.\n"
              "Of results files of mpimon bench placement (compact, with case, arm_A_name, arm_B_name,\n"
              "modelled_A and modelled_B set by mpimon compact --set): one panel per case, each mapping's\n"
              "measured time relative to A's with the 95 % CI beside its modelled cost, and Spearman's rank\n"
              "correlation of the two (docs/placement.md). Of results files of mpimon simulate: one panel per\n"
              "file (its case), each mapping's SIMULATED time relative to the first beside its modelled cost\n"
              "(docs/simulate.md). Needs Debian's python3-matplotlib and python3-h5py."};
  return run_command(cmd, [&] {
    po::options_description options("Options");
    std::vector<std::string> inputs;
    std::string output, title;
    unsigned columns = 3;
    options.add_options()("output,o", po::value(&output)->required(), "output prefix")(
        "title", po::value(&title)->default_value("mpimon place"), "figure title")(
        "columns", po::value(&columns)->default_value(3)->notifier(in_range<unsigned>("columns", 1, 12)),
        "results files: panels a row")("input", po::value(&inputs)->required()->multitoken(),
                                       "mpimon place --json reports");
    po::positional_options_description positional;
    positional.add("input", -1);
    po::variables_map vm;
    if (!parse_options(cmd, args, options, positional, vm)) return kExitOk;
    std::size_t results_files = 0;
    for (const auto& input : inputs) {
      if (access(input.c_str(), R_OK) != 0) raise_error(Error::Kind::input, input, "cannot read the file");
      if (!input.ends_with(".h5")) continue;
      if (hdf5_format_of(input) != kAppsFormat) {
        raise_error(Error::Kind::input, input, "not a results file of mpimon bench placement");
      }
      const auto configuration = AppResults(input).configuration();
      if (is_simulated(configuration)) {  // mpimon simulate: every mapping of its case, its modelled cost
        ++results_files;
        continue;
      }
      for (const char* key : {"case", "arm_A_name", "arm_B_name", "modelled_A", "modelled_B"}) {
        if (configuration.count(key) == 0) {
          raise_error(Error::Kind::input, input,
                      std::string("not a placement comparison to draw: no '") + key +
                          "' in its configuration (mpimon compact --set " + key + "=...)");
        }
      }
      ++results_files;
    }
    if (results_files != 0 && results_files != inputs.size()) {
      throw po::error("give either mpimon place --json reports or bench placement results files, not both");
    }
    std::vector<std::string> script_args = {"--output", output, "--title", title};
    if (results_files != 0) script_args.insert(script_args.end(), {"--columns", std::to_string(columns)});
    script_args.insert(script_args.end(), inputs.begin(), inputs.end());
    const char* script = results_files != 0 ? "plot_placement_measured.py" : "plot_placement.py";
    std::cout << run_plot_script(default_python(), plot_script(script), script_args, std::chrono::seconds(120));
    return kExitOk;
  });
}

}  // namespace mpimon::cli
