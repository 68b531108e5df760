// `mpimon bench app`: pairs of launches of an application, a built-in workload (mpimon-workload)
// or any MPI command, monitoring off and on in random order within each pair; every launch saved
// as it completes; RR-9038's Table 1 at the end (docs/apps.md).

#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <filesystem>
#include <iostream>
#include <optional>
#include <random>
#include <regex>

#include "app_options.hpp"
#include "cli_support.hpp"
#include "commands.hpp"
#include "mpimon/base/error.hpp"
#include "mpimon/base/version.hpp"
#include "mpimon/harness/app_sweep.hpp"
#include "mpimon/harness/launch.hpp"
#include "mpimon/harness/launch_pairs.hpp"
#include "mpimon/matrices/merge.hpp"
#include "mpimon/models/workloads.hpp"
#include "mpimon/results/apps.hpp"
#include "mpimon/results/arms.hpp"
#include "mpimon/results/gate.hpp"

namespace mpimon::cli {

using namespace mpimon::harness;

namespace fs = std::filesystem;

namespace {

std::string default_csv(const std::string& output) { return fs::path(output).replace_extension(".csv").string(); }

// --fail-above: each row's interval against the limit, the reports, and the gate's exit code.
int judge_and_report(const std::vector<AppRow>& rows, const std::map<std::string, std::string>& configuration,
                     double fail_above, bool allow_inconclusive, const std::string& json, const std::string& junit) {
  AppGateReport report = judge_app_overhead(rows, fail_above / 100, allow_inconclusive);
  report.provenance = configuration;
  std::printf("\ngate: overhead limit %g %%%s\n", fail_above, allow_inconclusive ? " (inconclusive allowed)" : "");
  for (const auto& r : report.rows) {
    const char* word = r.verdict == mpimon::Verdict::pass         ? "pass"
                       : r.verdict == mpimon::Verdict::regression ? "ABOVE"
                                                                  : "inconclusive";
    std::printf("  %-12s %s np %u: %s\n", word, r.app.c_str(), r.np, r.note.c_str());
  }
  if (!json.empty()) write_file_atomically(json, [&](std::ostream& o) { write_app_gate_json(report, o); });
  if (!junit.empty()) write_file_atomically(junit, [&](std::ostream& o) { write_app_gate_junit(report, o); });
  std::printf("gate: exit code %d%s\n", report.exit_code,
              report.exit_code == kExitAppGateAbove          ? " (an overhead may exceed the limit)"
              : report.exit_code == kExitAppGateInconclusive ? " (inconclusive: more pairs, or --allow-inconclusive)"
                                                             : "");
  return report.exit_code;
}

}  // namespace

int bench_app_command(const std::string& name, const std::vector<std::string>& all_args) {
  Command cmd{
      name,
      "[--workload NAME[,NAME...] [workload options]] [--np LIST] [--pairs R] [-o RESULTS.h5]\n"
      "       [--csv FILE] [--preload LIB] [--launcher CMD] [--mca KEY=VALUE]... [--resume] [--keep-going]\n"
      "       [--time-regex REGEX]\n"
      "       [--fail-above PCT [--allow-inconclusive] [--json FILE] [--junit FILE]] [-- COMMAND ARGS...]",
      "Measures what monitoring costs an application: for each process count and each of R pairs, one\n"
      "launch with monitoring off and one with it on, in random order. A built-in workload of\n"
      "mpimon-workload (" +
          workload_list() +
          ") is timed by its own report; any other MPI command (after --) by the\n"
          "wall time of its launch. Messages per process and per second come from the merged monitoring\n"
          "dumps of the on launches. Prints RR-9038's Table 1 (times, messages, overhead with its 95 % CI,\n"
          "t-test and Wilcoxon p) and writes it as CSV and, with every launch, to RESULTS.h5 (docs/apps.md).\n"
          "With --fail-above PCT it is a gate for an application's CI: exit code 6 when an overhead is shown to\n"
          "be a cost that may exceed PCT, 7 when its interval decides nothing, 0 when the whole interval lies\n"
          "below PCT (docs/gate.md)."};
  const auto [args, command] = split_command(all_args);
  return run_command(cmd, [&] {
    AppSweep s;
    AppOptions w;
    std::string np_list, json, junit, preload;
    po::options_description options("Options");
    add_app_options(options, w, s, "apps.h5");
    options.add_options()("np", po::value(&np_list)->default_value("2"), "process counts")(
        "monitoring-mode",
        po::value(&s.h.monitoring_mode)->default_value(2)->notifier(in_range<std::uint32_t>("monitoring-mode", 1, 2)),
        "pml_monitoring_enable of the on arm (2: internal and external told apart)")(
        "bind", po::value(&s.h.bind)->default_value("auto"),
        "auto (core when the processes fit the cores, else none), core, none, launcher")(
        "csv", po::value(&s.csv), "Table 1 as CSV (default: the results file with .csv)")(
        "preload", po::value(&preload),
        "compare monitored runs without and with this library preloaded (arms monitored, preloaded), e.g. "
        "libmpimon-collect.so: what collecting costs")(
        "fail-above", po::value<double>(), "gate: fail when the overhead may exceed PCT percent (exit codes 6, 7)")(
        "allow-inconclusive", "gate: an inconclusive interval does not fail (exit code 0, reported)")(
        "json", po::value(&json), "gate: JSON report")("junit", po::value(&junit), "gate: JUnit XML report");
    po::variables_map vm;
    if (!parse_options(cmd, args, options, {}, vm)) return kExitOk;
    const bool gate = vm.count("fail-above") > 0;
    const double fail_above = gate ? vm["fail-above"].as<double>() : 0.0;
    if (gate && !(fail_above > 0)) throw po::error("--fail-above takes a percentage > 0");
    if (!gate && (vm.count("allow-inconclusive") || !json.empty() || !junit.empty())) {
      throw po::error("--allow-inconclusive, --json and --junit go with --fail-above PCT");
    }
    s.nps = split_positive_list(np_list, "np");
    if (vm.count("preload")) s.arms = preload_arms(preload);
    apply_app_options(w, vm, command, s, "");
    if (s.csv.empty()) s.csv = default_csv(s.output);
    check_launches_planned(s);

    const auto [launches, failed, arms, rows, configuration] = run_app_sweep(s, name);
    write_app_table(rows, AppTable::overhead, arms, gate ? fail_above / 100 : 0.05, std::cout);
    if (arms.base != kArmOff) {
      std::printf("(off: the %s arm, %s; on: the %s arm, %s)\n", arms.base.c_str(), s.arms[0].description.c_str(),
                  arms.other.c_str(), s.arms[1].description.c_str());
    }
    write_file_atomically(s.csv, [&](std::ostream& o) { write_app_csv(rows, o, arms); });
    std::printf("results: %s\ntable: %s\n", s.output.c_str(), s.csv.c_str());
    failed.raise_if_any();  // --keep-going: failed launches, the gate's verdict too (not judged on fewer pairs)
    if (!gate) return kExitOk;
    return judge_and_report(rows, configuration, fail_above, vm.count("allow-inconclusive") > 0, json, junit);
  });
}

}  // namespace mpimon::cli
