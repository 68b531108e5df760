// `mpimon report FILE... -o REPORT.html`: one self-contained HTML page for matrices files, overhead
// and application results, validation and placement JSON (docs/report.md). The C++ side tells the
// files apart and prepares each matrices file's (block-reduced) view; analysis/scripts/make_report.py
// inlines the template, the script, plotly.js and the data.

#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <iostream>

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
    std::vector<std::string> temporaries;
    std::string names;
    auto cleanup = [&] {
      for (const auto& t : temporaries) std::filesystem::remove(t);
    };
    try {
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
          std::string view = (std::filesystem::temp_directory_path() / "mpimon-report-XXXXXX").string();
          const int fd = mkstemp(view.data());
          if (fd < 0) raise_error(Error::Kind::system, view, "cannot create a temporary file");
          close(fd);
          temporaries.push_back(view);
          std::ofstream out(view, std::ios::trunc);
          write_heatmap_json(MatrixFile(input), {dump, {}}, out);
          script_args.insert(script_args.end(), {"--matrices", view});
        } else {
          raise_error(Error::Kind::input, input, "not an mpimon matrices, overhead or application results file");
        }
      }
      AtomicOutput atomic(output);
      const std::string script = data_file("scripts/make_report.py");
      std::vector<std::string> command = {access("/usr/bin/python3", X_OK) == 0 ? "/usr/bin/python3" : "python3",
                                          script,
                                          "--data-dir",
                                          data_directory().string(),
                                          "--output",
                                          atomic.temporary(),
                                          "--title",
                                          title,
                                          "--inputs",
                                          names};
      command.insert(command.end(), script_args.begin(), script_args.end());
      LaunchResult r = run_process(command, {}, std::chrono::seconds(600));
      if (r.exit_code != 0) {
        raise_error(Error::Kind::system, script, "failed (exit code " + std::to_string(r.exit_code) + "): " + r.output);
      }
      atomic.commit();
      std::cout << output << "\n";
    } catch (...) {
      cleanup();
      throw;
    }
    cleanup();
    return kExitOk;
  });
}

}  // namespace mpimon::cli
