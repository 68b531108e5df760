// `mpimon plot RESULTS.h5 [-o DIR]`: the overhead and application figures (docs/plots.md), drawn
// by analysis/scripts/plot_overhead.py; `mpimon plot collective`: a forced collective's pattern
// next to its PMPI-level view (docs/collectives.md). Both with Debian's matplotlib.

#include <unistd.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <sstream>

#include "cli_support.hpp"
#include "commands.hpp"
#include "mpimon/apps.hpp"
#include "mpimon/error.hpp"
#include "mpimon/harness/launch.hpp"
#include "mpimon/harness/locations.hpp"
#include "mpimon/matrix_file.hpp"
#include "mpimon/matrix_view.hpp"
#include "mpimon/overhead.hpp"

namespace mpimon::cli {

using namespace mpimon::harness;

namespace {

/// "MPI_Bcast" for bcast, and so on.
std::string mpi_name(CollectiveOp op) {
  std::string name(op_name(op));
  name[0] = static_cast<char>(name[0] - 'a' + 'A');
  return "MPI_" + name;
}

/// The table plot_heatmaps.py reads: the PML-level decomposition next to the API-level view.
std::string heatmap_table(const CollectiveSpec& spec, Metric metric) {
  const std::string what = std::string(op_name(spec.op)) + " " + std::string(algorithm_name(spec.op, spec.algorithm));
  const std::string unit = metric == Metric::bytes ? "bytes" : "messages";
  std::ostringstream out;
  out << "size\t" << spec.nprocs << "\n";
  out << "panel\tpml\t" << unit << "\tPML monitoring (E + I): what " << what << " sends\n";
  out << "panel\tpmpi\t" << unit << "\tPMPI level: what the " << mpi_name(spec.op) << " call says\n";
  auto cells = [&](const char* panel, const EdgeTraffic& traffic) {
    std::map<std::pair<std::uint32_t, std::uint32_t>, std::uint64_t> sums;  // E and I together
    for (const auto& [edge, load] : traffic.edges()) {
      sums[{edge.src, edge.dst}] += metric == Metric::bytes ? load.bytes : load.messages;
    }
    for (const auto& [pair, value] : sums) {
      if (value != 0) out << "cell\t" << panel << "\t" << pair.first << "\t" << pair.second << "\t" << value << "\n";
    }
  };
  cells("pml", predict_collective(spec));
  cells("pmpi", api_level_traffic(spec));
  return out.str();
}

std::string default_plot_script() {
  if (const char* env = std::getenv("MPIMON_PLOT_SCRIPT")) return env;
  return data_file("scripts/plot_heatmaps.py");
}

/// Debian's interpreter, which sees python3-matplotlib, rather than whatever python3 comes first.
std::string default_python() { return access("/usr/bin/python3", X_OK) == 0 ? "/usr/bin/python3" : "python3"; }

void draw_heatmaps(const std::string& table, const std::string& output, const std::string& title,
                   const std::string& python, const std::string& script) {
  if (access(script.c_str(), R_OK) != 0) raise_error(Error::Kind::input, script, "plot script not found (--script)");
  std::string path = (std::filesystem::temp_directory_path() / "mpimon-plot-XXXXXX").string();
  const int fd = mkstemp(path.data());
  if (fd < 0) raise_error(Error::Kind::system, path, "cannot create a temporary file");
  close(fd);
  remove_on_interrupt(path);
  {
    std::ofstream out(path, std::ios::trunc);
    out << table;
  }
  LaunchResult r = run_process({python, script, "--input", path, "--output", output, "--title", title}, {},
                               std::chrono::seconds(120));
  std::filesystem::remove(path);
  remove_on_interrupt("");
  if (r.exit_code != 0) {
    raise_error(Error::Kind::system, script,
                "plotting failed (exit code " + std::to_string(r.exit_code) +
                    "; is python3-matplotlib installed?): " + r.output);
  }
  std::cout << r.output;
}

// Fig. 3 is the only figure of an application results file: said here, in one message, rather
// than by the script followed by a plotting failure that blames matplotlib.
void require_stencil_pairs(const std::string& input) {
  const AppResults results(input);
  const ArmPair arms = arms_of(results.configuration());
  if (arms.base != "off" || arms.other != "on") {
    raise_error(Error::Kind::input, input,
                "results of arms " + arms.base + " and " + arms.other +
                    " (mpimon bench placement): no figure; mpimon show prints their table");
  }
  const auto pairs = app_pairs(results.launches());
  const bool any = std::any_of(pairs.begin(), pairs.end(), [](const AppPair& p) {
    return p.app.rfind("stencil", 0) == 0 && p.comm_share && std::isfinite(p.relative);
  });
  if (!any) {
    raise_error(Error::Kind::input, input,
                "no pairs of stencil launches with a communication share in these results: the only figure of an "
                "application results file is Fig. 3, which needs mpimon bench app --workload stencil "
                "--compute-sweep 0,1,4,16,64 (see mpimon show for this file's Table 1)");
  }
}

}  // namespace

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
        "script", po::value(&script)->default_value(default_plot_script(), "plot_heatmaps.py of this source tree"),
        "the plotting script");
    po::variables_map vm;
    if (!parse_options(cmd, args, options, {}, vm)) return kExitOk;
    const CollectiveSpec spec = collective_spec(values, vm);
    Metric m = spec.op == CollectiveOp::barrier ? Metric::count : Metric::bytes;
    if (metric == "bytes")
      m = Metric::bytes;
    else if (metric == "count")
      m = Metric::count;
    else if (!metric.empty())
      throw po::error("--metric must be bytes or count, not '" + metric + "'");
    const std::string table = heatmap_table(spec, m);
    if (vm.count("table")) {
      std::cout << table;
      return kExitOk;
    }
    if (output.empty()) throw po::error("the option '--output' is required (or give --table)");
    std::string title = mpi_name(spec.op) + ", coll/tuned " + std::string(algorithm_name(spec.op, spec.algorithm)) +
                        ", " + std::to_string(spec.nprocs) + " processes";
    if (has_root(spec.op)) title += ", root " + std::to_string(spec.root);
    if (spec.op != CollectiveOp::barrier) title += ", " + std::to_string(spec.count * spec.type_size) + " B";
    if (spec.segment_size > 0) title += ", segments of " + std::to_string(spec.segment_size) + " B";
    draw_heatmaps(table, output, title, python, script);
    return kExitOk;
  });
}

std::string overhead_script() {
  if (const char* env = std::getenv("MPIMON_PLOT_OVERHEAD_SCRIPT")) return env;
  return data_file("scripts/plot_overhead.py");
}

std::string script_path(const char* name) { return data_file(std::string("scripts/") + name); }

std::vector<TrafficClass> parse_class_list(const std::string& list) {
  std::vector<TrafficClass> classes;
  std::stringstream in(list);
  for (std::string item; std::getline(in, item, ',');) {
    auto c = parse_class(item);
    if (!c) throw po::error("--classes: unknown class '" + item + "' (external, internal, osc_sent, osc_recv, coll)");
    classes.push_back(*c);
  }
  return classes;
}

std::string write_heatmap_view(const std::string& input, const HeatmapRequest& request) {
  MatrixFile file(input);
  std::ostringstream json;
  write_heatmap_json(file, request, json);
  return json.str();
}

/// Runs /usr/bin/python3 SCRIPT with the JSON view in a temporary file as its first argument.
void run_with_view(const std::string& script, const std::string& view, std::vector<std::string> args) {
  std::string path = (std::filesystem::temp_directory_path() / "mpimon-view-XXXXXX").string();
  const int fd = mkstemp(path.data());
  if (fd < 0) raise_error(Error::Kind::system, path, "cannot create a temporary file");
  close(fd);
  remove_on_interrupt(path);
  {
    std::ofstream out(path, std::ios::trunc);
    out << view;
  }
  args.insert(args.begin(), {default_python(), script, path});
  LaunchResult r = run_process(args, {}, std::chrono::seconds(600));
  std::filesystem::remove(path);
  remove_on_interrupt("");
  std::cout << r.output;
  if (r.exit_code != 0) {
    raise_error(Error::Kind::system, script,
                "failed (exit code " + std::to_string(r.exit_code) +
                    "); it needs Debian's python3-matplotlib and python3-h5py (ci/install-deps.sh)");
  }
}

int plot_results_command(const std::string& name, const std::vector<std::string>& args) {
  Command cmd{name, "FILE.h5 [--dump NAME] [--classes LIST] [--metric bytes|count] [-o DIR]",
              "Draws the figures of an overhead results file (mpimon bench overhead): the Fig. 1 heatmaps\n"
              "of the relative overhead per operation over message size and process count, and the Fig. 2\n"
              "difference per call and per process with its 95 % CI, as PNG and SVG (docs/plots.md); of an\n"
              "application results file (mpimon bench app): Fig. 3, the stencil's overhead against its\n"
              "communication share, median and quartiles per share bin.\n"
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
    if (metric != "bytes" && metric != "count")
      throw po::error("--metric must be bytes or count, not '" + metric + "'");
    if (format == kMatricesFormat) {
      std::filesystem::create_directories(dir);
      const std::string view = write_heatmap_view(input, {dump, parse_class_list(classes)});
      run_with_view(script_path("plot_matrices.py"), view, {"--output", dir, "--metric", metric});
      return kExitOk;
    }
    if (!vm["dump"].empty() || !vm["classes"].empty()) throw po::error("--dump and --classes need a matrices file");
    if (format != kOverheadFormat && format != kAppsFormat) {
      raise_error(
          Error::Kind::input, input,
          "not a matrices, overhead or application results file (made by mpimon-merge, mpimon bench overhead or app)");
    }
    if (format == kAppsFormat) require_stencil_pairs(input);
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
    const std::string script = data_file("scripts/plot_placement.py");
    std::vector<std::string> command = {default_python(), script, "--output", output, "--title", title};
    command.insert(command.end(), inputs.begin(), inputs.end());
    LaunchResult r = run_process(command, {}, std::chrono::seconds(120));
    std::cout << r.output;
    if (r.exit_code != 0) {
      raise_error(Error::Kind::system, script,
                  "plotting failed (exit code " + std::to_string(r.exit_code) + "; is python3-matplotlib installed?)");
    }
    return kExitOk;
  });
}

}  // namespace mpimon::cli
