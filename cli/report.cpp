// `mpimon report FILE... -o REPORT.html`: one self-contained HTML page for matrices files, overhead
// and application results, validation and placement JSON (docs/report.md). The C++ side tells the
// files apart and prepares each matrices file's (block-reduced) view; analysis/scripts/make_report.py
// inlines the template, the script, plotly.js and the data.

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <optional>
#include <sstream>

#include "cli_support.hpp"
#include "commands.hpp"
#include "mpimon/base/error.hpp"
#include "mpimon/base/output.hpp"
#include "mpimon/harness/locations.hpp"
#include "mpimon/harness/plots.hpp"
#include "mpimon/harness/report_data.hpp"
#include "mpimon/matrices/export.hpp"
#include "mpimon/matrices/matrix_file.hpp"
#include "mpimon/matrices/matrix_view.hpp"
#include "mpimon/placement/links.hpp"
#include "mpimon/placement/place.hpp"
#include "mpimon/results/apps.hpp"
#include "mpimon/results/overhead.hpp"
#include "place_options.hpp"

namespace mpimon::cli {

using namespace mpimon::harness;

namespace {

bool starts_with_hdf5_signature(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) raise_error(Error::Kind::input, path, "cannot open");
  char head[8] = {};
  in.read(head, sizeof head);
  return std::string(head, 8) == std::string("\x89HDF\r\n\x1a\n", 8);
}

// `mpimon place --json` of the dump on the machine of `machine` (--topology, --hostfile, and the time
// model's links --link, --links or the cluster's; every method, external and internal bytes): the
// report's placement section.
std::string placement_json(const MatrixFile& file, const std::string& dump_name, PlaceOptions machine) {
  const std::string dump = dump_name.empty() ? file.default_dump() : dump_name;
  const PlacementMachine placed = machine_of(machine);
  const TreeTopology& topo = placed.topo;
  const std::vector<TrafficClass> classes = {TrafficClass::external, TrafficClass::internal};
  const PlacementTraffic traffic = read_placement_traffic(file, dump, classes, classes, Metric::bytes, has_links(topo));
  const auto rows = place(traffic, topo, PlacementRequest{});
  std::ostringstream out;
  write_placement_json(out, rows, topo,
                       {file.path(), dump, traffic.compute.order, "external,internal", "external,internal", "bytes", 1,
                        placed.links_from},
                       cheapest(rows).method);
  return out.str();
}

}  // namespace

int report_command(const std::string& name, const std::vector<std::string>& args) {
  Command cmd{name,
              "FILE... -o REPORT.html [--dump NAME] [--topology TOPO] [--hostfile FILE] [--link RATE,LATENCY]...\n"
              "       [--links FILE] [--title TEXT]",
              "Writes one self-contained HTML page (it opens from disk, no network: the charting library,\n"
              "plotly.js, is inlined) for the files given. It leads with the run of a matrices file: its summary\n"
              "(processes, classes, top talkers), its matrix (interactive heatmaps per class and metric), and,\n"
              "with --topology TOPO (as mpimon place takes it) or a placement result (mpimon place --json), the\n"
              "chosen mapping's traffic between nodes and sockets against packed; with the links' rates\n"
              "(--link, --links from mpimon probe, or --hostfile of an mpimon cluster) its predicted communication\n"
              "time and the seconds it saves against packed. Then the known defects of\n"
              "Open MPI's monitoring that can affect the run (the others folded), message sizes, top talkers,\n"
              "communicators, and the other files: overhead results (Fig. 1, Fig. 2), application results\n"
              "(Table 1), mpimon validate --json reports. docs/report.md."};
  return run_command(cmd, [&] {
    po::options_description options("Options");
    std::vector<std::string> inputs;
    std::string output, dump, title;
    PlaceOptions machine;  // --topology, --hostfile and the links, as mpimon place reads them
    options.add_options()("output,o", po::value(&output)->required(), "the HTML file to write")(
        "dump", po::value(&dump), "matrices files: the dump to show (default: each file's only dump)")(
        "title", po::value(&title)->default_value("mpimon report"), "the page's title")(
        "topology", po::value(&machine.topology),
        "matrices files: place their ranks on this machine (as mpimon place)")(
        "hostfile", po::value(&machine.hostfile),
        "with --topology or alone: the hostfile of an mpimon cluster, whose nodes and links' rate place takes")(
        "input", po::value(&inputs)->required(), "input files");
    add_link_options(options, machine);  // the placement's predicted time
    po::positional_options_description positional;
    positional.add("input", -1);
    po::variables_map vm;
    if (!parse_options(cmd, args, options, positional, vm)) return kExitOk;
    const bool placing = !machine.topology.empty() || !machine.hostfile.empty();
    if (!placing && (!machine.link.empty() || !machine.links_file.empty())) {
      throw po::error(std::string(machine.link.empty() ? "--links" : "--link") +
                      " gives the links of the machine the ranks are placed on: --topology (or --hostfile) too");
    }

    std::vector<std::string> script_args;
    std::vector<TemporaryFile> views;  // the matrices files' views, gone afterwards and on Ctrl-C
    std::string names;
    for (const auto& input : inputs) {
      names += (names.empty() ? "" : ", ") + std::filesystem::path(input).filename().string();
      if (!starts_with_hdf5_signature(input)) {
        script_args.insert(script_args.end(), {"--" + report_json_kind(input), input});
        continue;
      }
      const std::string format = hdf5_format_of(input);
      if (format == kOverheadFormat) {
        script_args.insert(script_args.end(), {"--overhead", input});
      } else if (format == kAppsFormat) {
        script_args.insert(script_args.end(), {"--apps", input});
      } else if (format == kMatricesFormat) {
        const MatrixFile file(input);
        std::ostringstream view;
        write_heatmap_json(file, {dump, {}}, view);
        views.push_back(script_input(view.str(), "report"));
        views.push_back(script_input(run_facts_json(file, dump), "report"));
        script_args.insert(script_args.end(),
                           {"--matrices", views[views.size() - 2].path(), "--facts", views.back().path()});
        if (placing) {
          views.push_back(script_input(placement_json(file, dump, machine), "report"));
          script_args.insert(script_args.end(), {"--place", views.back().path()});
        }
      } else {
        raise_error(Error::Kind::input, input, "not an mpimon matrices, overhead or application results file");
      }
    }
    if (placing && script_args.end() == std::find(script_args.begin(), script_args.end(), "--matrices")) {
      throw po::error(std::string(machine.topology.empty() ? "--hostfile" : "--topology") +
                      " places the ranks of a matrices file: none given");
    }
    AtomicOutput atomic(output);
    std::vector<std::string> page_args = {
        "--data-dir", data_directory().string(), "--output", atomic.temporary(), "--title", title, "--inputs", names};
    page_args.insert(page_args.end(), script_args.begin(), script_args.end());
    run_plot_script(default_python(), plot_script("make_report.py"), page_args, std::chrono::seconds(600));
    atomic.commit();
    std::cout << output << "\n";
    return kExitOk;
  });
}

}  // namespace mpimon::cli
