// `mpimon plot placement`: the modelled costs of `mpimon place --json` reports as grouped bars
// (docs/placement.md), drawn by plot_placement.py with Debian's matplotlib.

#include <unistd.h>

#include <iostream>

#include "cli_support.hpp"
#include "commands.hpp"
#include "mpimon/base/error.hpp"
#include "mpimon/harness/plots.hpp"

namespace mpimon::cli {

using namespace mpimon::harness;

int plot_placement_command(const std::string& name, const std::vector<std::string>& args) {
  Command cmd{name, "REPORT.json... -o PREFIX [--title TEXT]",
              "Draws reports of mpimon place --json as grouped bars: each method's MODELLED cost relative to\n"
              "packed, per report (random: mean and standard deviation), as PREFIX.png and PREFIX.svg\n"
              "(docs/placement.md). Needs Debian's python3-matplotlib."};
  return run_command(cmd, [&] {
    po::options_description options("Options");
    std::vector<std::string> inputs;
    std::string output, title;
    options.add_options()("output,o", po::value(&output)->required(), "output prefix")(
        "title", po::value(&title)->default_value("mpimon place"), "figure title")(
        "input", po::value(&inputs)->required()->multitoken(), "mpimon place --json reports");
    po::positional_options_description positional;
    positional.add("input", -1);
    po::variables_map vm;
    if (!parse_options(cmd, args, options, positional, vm)) return kExitOk;
    for (const auto& input : inputs) {
      if (access(input.c_str(), R_OK) != 0) raise_error(Error::Kind::input, input, "cannot read the report");
    }
    std::vector<std::string> script_args = {"--output", output, "--title", title};
    script_args.insert(script_args.end(), inputs.begin(), inputs.end());
    std::cout << run_plot_script(default_python(), plot_script("plot_placement.py"), script_args,
                                 std::chrono::seconds(120));
    return kExitOk;
  });
}

}  // namespace mpimon::cli
