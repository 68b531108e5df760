// `mpimon model collective`: prints the point-to-point traffic a forced coll/tuned algorithm
// makes, as Open MPI's monitoring records it; `mpimon plot collective` draws it next to the
// PMPI-level view of the same call (docs/collectives.md).

#include <unistd.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <map>
#include <sstream>

#include "cli_support.hpp"
#include "commands.hpp"
#include "mpimon/harness/launch.hpp"
#include "mpimon/error.hpp"
#include "mpimon/matrix_file.hpp"

namespace mpimon::cli {

using namespace mpimon::harness;

void add_collective_options(po::options_description& options, CollectiveOptions& v) {
  options.add_options()("op", po::value(&v.op)->required(),
                        "operation: bcast, reduce, allreduce, alltoall, allgather, gather, scatter, barrier")(
      "algorithm", po::value(&v.algorithm)->required(),
      "coll_tuned_<op>_algorithm: Open MPI's name or number (see --list)")(
      "np", po::value(&v.np)->required(), "number of processes (MPI_COMM_WORLD)")(
      "root", po::value(&v.root)->default_value(0), "root of bcast, reduce, gather, scatter")(
      "count", po::value(&v.count), "element count passed to the call (per rank for alltoall, allgather, gather, "
                                    "scatter); required except for barrier")(
      "type-size", po::value(&v.type_size)->default_value(1), "bytes per element (MPI_Type_size)")(
      "segsize", po::value(&v.segsize)->default_value(0), "coll_tuned_<op>_algorithm_segmentsize in bytes, 0: none")(
      "tree-fanout", po::value(&v.tree_fanout)->default_value(4), "coll_tuned_<op>_algorithm_tree_fanout")(
      "chain-fanout", po::value(&v.chain_fanout)->default_value(4), "coll_tuned_<op>_algorithm_chain_fanout")(
      "radix", po::value(&v.radix)->default_value(4), "coll_tuned_bcast_algorithm_knomial_radix")(
      "mode", po::value(&v.mode)->default_value(2), "pml_monitoring_enable: 2 separates I from E, 1 puts all in E")(
      "ideal-monitoring", po::bool_switch(&v.ideal_monitoring),
      "predict what a monitoring without the persistent-collective defect would record (docs/defects.md)");
}

CollectiveSpec collective_spec(const CollectiveOptions& v, const po::variables_map& vm) {
  try {
    CollectiveSpec spec;
    spec.op = parse_op(v.op);
    spec.algorithm = parse_algorithm(spec.op, v.algorithm);
    if (!vm.count("count") && spec.op != CollectiveOp::barrier) throw po::error("the option '--count' is required");
    spec.nprocs = v.np;
    spec.root = v.root;
    spec.count = vm.count("count") ? v.count : 0;
    spec.type_size = v.type_size;
    spec.segment_size = v.segsize;
    spec.tree_fanout = v.tree_fanout;
    spec.chain_fanout = v.chain_fanout;
    spec.knomial_radix = v.radix;
    spec.monitoring_mode = v.mode;
    spec.ideal_monitoring = v.ideal_monitoring;
    if (!has_root(spec.op) && vm.count("root") && !vm["root"].defaulted() && v.root != 0) {
      throw po::error("--root applies to bcast, reduce, gather and scatter only");
    }
    check_spec(spec);
    return spec;
  } catch (const Error& e) {
    throw po::error(e.what());  // a bad option value: a usage error
  }
}

namespace {

void print_algorithms() {
  std::printf("%-10s %3s  %-24s %s\n", "op", "n", "algorithm", "modelled");
  for (CollectiveOp op : kAllCollectiveOps) {
    for (const auto& a : collective_algorithms(op)) {
      std::printf("%-10s %3d  %-24s %s\n", std::string(op_name(op)).c_str(), a.number, std::string(a.name).c_str(),
                  a.modelled ? "yes" : "no");
    }
  }
}

int model_collective(const std::string& name, const std::vector<std::string>& args) {
  Command cmd{name, "--op OP --algorithm ALG --np N [--root R] --count C [--type-size T] [--segsize S] ...",
              "Prints the point-to-point messages Open MPI's coll/tuned algorithm ALG makes for one call on\n"
              "MPI_COMM_WORLD, forced with coll_tuned_use_dynamic_rules 1 and coll_tuned_<op>_algorithm ALG,\n"
              "as its monitoring records them: one line per directed pair with traffic,\n"
              "CLASS<TAB>SRC<TAB>DST<TAB>BYTES<TAB>COUNT, CLASS being E or I, sorted by class, source,\n"
              "destination. Written from Open MPI 4.1's algorithms (docs/collectives.md); 'mpimon validate\n"
              "collective' with the same options checks it against Open MPI."};
  return run_command(cmd, [&] {
    po::options_description options("Options");
    CollectiveOptions values;
    add_collective_options(options, values);
    options.add_options()("list", "list Open MPI's algorithms and whether the model covers them, and exit");
    po::variables_map vm;
    if (std::find(args.begin(), args.end(), "--list") != args.end()) {
      print_algorithms();
      return kExitOk;
    }
    if (!parse_options(cmd, args, options, {}, vm)) return kExitOk;
    std::cout << format_traffic(predict_collective(collective_spec(values, vm)));
    return kExitOk;
  });
}

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
#ifdef MPIMON_SOURCE_DIR
  return std::string(MPIMON_SOURCE_DIR) + "/analysis/scripts/plot_heatmaps.py";
#else
  return "plot_heatmaps.py";
#endif
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
    raise_error(Error::Kind::system, script, "plotting failed (exit code " + std::to_string(r.exit_code) +
                                                 "; is python3-matplotlib installed?): " + r.output);
  }
  std::cout << r.output;
}

int plot_collective(const std::string& name, const std::vector<std::string>& args) {
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
        "script", po::value(&script)->default_value(default_plot_script()), "the plotting script");
    po::variables_map vm;
    if (!parse_options(cmd, args, options, {}, vm)) return kExitOk;
    const CollectiveSpec spec = collective_spec(values, vm);
    Metric m = spec.op == CollectiveOp::barrier ? Metric::count : Metric::bytes;
    if (metric == "bytes") m = Metric::bytes;
    else if (metric == "count") m = Metric::count;
    else if (!metric.empty()) throw po::error("--metric must be bytes or count, not '" + metric + "'");
    const std::string table = heatmap_table(spec, m);
    if (vm.count("table")) {
      std::cout << table;
      return kExitOk;
    }
    if (output.empty()) throw po::error("the option '--output' is required (or give --table)");
    std::string title = mpi_name(spec.op) + ", coll/tuned " +
                        std::string(algorithm_name(spec.op, spec.algorithm)) + ", " + std::to_string(spec.nprocs) +
                        " processes";
    if (has_root(spec.op)) title += ", root " + std::to_string(spec.root);
    if (spec.op != CollectiveOp::barrier) title += ", " + std::to_string(spec.count * spec.type_size) + " B";
    if (spec.segment_size > 0) title += ", segments of " + std::to_string(spec.segment_size) + " B";
    draw_heatmaps(table, output, title, python, script);
    return kExitOk;
  });
}

}  // namespace

int plot_command(const std::string& name, const std::vector<std::string>& args) {
  const std::string usage = "Usage: " + name + " RESULTS.h5 [-o DIR]   or   " + name +
                            " collective [options]  ('--help' after either for more)\n";
  if (args.empty() || args[0] == "--help" || args[0] == "-h") {
    std::cout << usage << "  RESULTS.h5   the overhead figures of mpimon bench overhead's results\n"
              << "  collective   heatmaps of a forced collective: PML-level messages next to the PMPI view\n";
    return args.empty() ? kExitUsage : kExitOk;
  }
  if (args[0] == "collective") return plot_collective(name + " collective", {args.begin() + 1, args.end()});
  return plot_results_command(name, args);
}

int model_command(const std::string& name, const std::vector<std::string>& args) {
  const std::string usage = "Usage: " + name + " collective [options]  ('" + name + " collective --help' for more)\n";
  if (args.empty() || args[0] == "--help" || args[0] == "-h") {
    std::cout << usage << "  collective   point-to-point traffic of a forced coll/tuned collective algorithm\n";
    return args.empty() ? kExitUsage : kExitOk;
  }
  if (args[0] == "collective") return model_collective(name + " collective", {args.begin() + 1, args.end()});
  std::cerr << name << ": error: unknown model '" << args[0] << "'\n" << usage;
  return kExitUsage;
}

}  // namespace mpimon::cli
