// `mpimon report FILE... -o REPORT.html`: one self-contained HTML page for matrices files, overhead
// and application results, validation and placement JSON (docs/report.md). The C++ side tells the
// files apart and prepares each matrices file's (block-reduced) view; analysis/scripts/make_report.py
// inlines the template, the script, plotly.js and the data.

#include <filesystem>
#include <fstream>
#include <iostream>
#include <sstream>

#include "cli_support.hpp"
#include "commands.hpp"
#include "mpimon/base/error.hpp"
#include "mpimon/base/output.hpp"
#include "mpimon/harness/locations.hpp"
#include "mpimon/harness/plots.hpp"
#include "mpimon/matrices/matrix_file.hpp"
#include "mpimon/matrices/matrix_view.hpp"
#include "mpimon/results/apps.hpp"
#include "mpimon/results/overhead.hpp"

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

/// "validate" for `mpimon validate --json` output (it has "cases"), "place" for a placement result.
std::string json_kind(const std::string& path) {
  std::ifstream in(path);
  std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  const auto first = text.find_first_not_of(" \t\r\n");
  if (first == std::string::npos || text[first] != '{') {
    raise_error(Error::Kind::input, path,
                "neither HDF5 nor a JSON object (mpimon validate --json, mpimon place --json)");
  }
  if (text.find("\"cases\"") != std::string::npos) return "validate";
  return "place";
}

}  // namespace

int report_command(const std::string& name, const std::vector<std::string>& args) {
  Command cmd{name, "FILE... -o REPORT.html [--dump NAME] [--title TEXT]",
              "Writes one self-contained HTML page (it opens from disk, no network: the charting library,\n"
              "plotly.js, is inlined) for the files given: matrices files (mpimon-merge: interactive heatmaps\n"
              "per class and metric, message sizes, top talkers, communicators), overhead results (Fig. 1,\n"
              "Fig. 2), application results (Table 1), mpimon validate --json reports and placement results\n"
              "(mpimon place --json). The page lists the pinned Open MPI defects (docs/defects.md)."};
  return run_command(cmd, [&] {
    po::options_description options("Options");
    std::vector<std::string> inputs;
    std::string output, dump, title;
    options.add_options()("output,o", po::value(&output)->required(), "the HTML file to write")(
        "dump", po::value(&dump), "matrices files: the dump to show (default: each file's only dump)")(
        "title", po::value(&title)->default_value("mpimon report"), "the page's title")(
        "input", po::value(&inputs)->required(), "input files");
    po::positional_options_description positional;
    positional.add("input", -1);
    po::variables_map vm;
    if (!parse_options(cmd, args, options, positional, vm)) return kExitOk;

    std::vector<std::string> script_args;
    std::vector<TemporaryFile> views;  // the matrices files' views, gone afterwards and on Ctrl-C
    std::string names;
    for (const auto& input : inputs) {
      names += (names.empty() ? "" : ", ") + std::filesystem::path(input).filename().string();
      if (!starts_with_hdf5_signature(input)) {
        script_args.insert(script_args.end(), {"--" + json_kind(input), input});
        continue;
      }
      const std::string format = hdf5_format_of(input);
      if (format == kOverheadFormat) {
        script_args.insert(script_args.end(), {"--overhead", input});
      } else if (format == kAppsFormat) {
        script_args.insert(script_args.end(), {"--apps", input});
      } else if (format == kMatricesFormat) {
        std::ostringstream view;
        write_heatmap_json(MatrixFile(input), {dump, {}}, view);
        views.push_back(script_input(view.str(), "report"));
        script_args.insert(script_args.end(), {"--matrices", views.back().path()});
      } else {
        raise_error(Error::Kind::input, input, "not an mpimon matrices, overhead or application results file");
      }
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
