// mpimon stats paired: the paired analysis of docs/statistics.md on a user's own two columns. The
// report's rows, verdict and JSON are the analysis library's (paired_report.hpp).

#include <cstdio>
#include <iostream>

#include "cli_support.hpp"
#include "commands.hpp"
#include "mpimon/results/paired_report.hpp"
#include "mpimon/results/stats.hpp"

namespace mpimon::cli {

namespace {

void print_report(const PairedReport& r) {
  std::printf("%s\n", r.title.c_str());
  for (const auto& [label, text] : r.rows) std::printf("%-15s %s\n", label.c_str(), text.c_str());
  std::printf("verdict: %s\n", r.verdict.c_str());
  if (!r.note.empty()) std::printf("%s\n", r.note.c_str());
}

}  // namespace

int stats_paired_command(const std::string& name, const std::vector<std::string>& args) {
  Command cmd{name, "FILE.csv [--processes P] [--confidence 0.95] [--unit ns] [--json]",
              "Paired analysis of two columns of timings, off and on, one pair of launches per line\n"
              "(comma or whitespace separated; an optional header line; '#' comments): paired t-test on\n"
              "on - off with its confidence interval, relative difference, Wilcoxon signed-rank test, and a\n"
              "verdict (docs/statistics.md). Pair per-launch summaries, never iterations pooled across launches."};
  return run_command(cmd, [&] {
    po::options_description options("Options");
    PairedReportOptions report;
    long long processes = 0;
    options.add_options()("processes", po::value(&processes),
                          "also report the difference divided by this process count (per call per process)")(
        "confidence", po::value(&report.confidence)->default_value(0.95, "0.95"), "confidence level of the intervals")(
        "unit", po::value(&report.unit)->default_value("ns"), "unit of the timings, for the report (\"\" for none)")(
        "json", "print the result as JSON")("input", po::value(&report.input)->required(), "file of pairs");
    po::positional_options_description positional;
    positional.add("input", 1);
    po::variables_map vm;
    if (!parse_options(cmd, args, options, positional, vm)) return kExitOk;
    if (!(report.confidence > 0 && report.confidence < 1))
      throw po::error("--confidence must be between 0 and 1 (exclusive), e.g. 0.95");
    if (vm.count("processes")) {
      if (processes < 1) throw po::error("--processes must be at least 1");
      report.processes = static_cast<std::size_t>(processes);
    }
    PairedSamples samples = read_paired_samples(report.input);
    PairedAnalysis analysis = paired_analysis(samples.off, samples.on, report.confidence);
    if (vm.count("json")) {
      write_paired_json(std::cout, analysis, report);
    } else {
      print_report(paired_report(analysis, samples, report));
    }
    return kExitOk;
  });
}

}  // namespace mpimon::cli
