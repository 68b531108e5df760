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

#include "app_report.hpp"
#include "cli_support.hpp"
#include "commands.hpp"
#include "mpimon/apps.hpp"
#include "mpimon/error.hpp"
#include "mpimon/gate.hpp"
#include "mpimon/harness/app_sweep.hpp"
#include "mpimon/harness/launch.hpp"
#include "mpimon/harness/launch_pairs.hpp"
#include "mpimon/merge.hpp"
#include "mpimon/version.hpp"

namespace mpimon::cli {

using namespace mpimon::harness;

namespace fs = std::filesystem;

namespace {

void check_compute(const std::string& text) {
  std::size_t used = 0;
  double value = -1;
  try {
    value = std::stod(text, &used);
  } catch (const std::exception&) {
  }
  if (used != text.size() || !(value >= 0)) throw po::error("--compute takes numbers >= 0, not '" + text + "'");
}

std::string default_csv(const std::string& output) { return fs::path(output).replace_extension(".csv").string(); }

// --fail-above: each row's interval against the limit, the reports, and the gate's exit code.
int judge_and_report(const std::vector<AppRow>& rows, const std::map<std::string, std::string>& configuration,
                     double fail_above, bool allow_inconclusive, const std::string& json, const std::string& junit) {
  AppGateReport report = judge_app_overhead(rows, fail_above / 100, allow_inconclusive);
  report.provenance = configuration;
  std::printf("\ngate: overhead limit %g %%%s\n", fail_above, allow_inconclusive ? " (inconclusive allowed)" : "");
  for (const auto& r : report.rows) {
    const char* word = r.verdict == Verdict::pass         ? "pass"
                       : r.verdict == Verdict::regression ? "ABOVE"
                                                          : "inconclusive";
    std::printf("  %-12s %s np %u: %s\n", word, r.app.c_str(), r.np, r.note.c_str());
  }
  if (!json.empty()) write_file_atomically(json, [&](std::ostream& o) { write_app_gate_json(report, o); });
  if (!junit.empty()) write_file_atomically(junit, [&](std::ostream& o) { write_app_gate_junit(report, o); });
  std::printf("gate: exit code %d%s\n", report.exit_code,
              report.exit_code == kAppGateAbove          ? " (an overhead may exceed the limit)"
              : report.exit_code == kAppGateInconclusive ? " (inconclusive: more pairs, or --allow-inconclusive)"
                                                         : "");
  return report.exit_code;
}

}  // namespace

int bench_app_command(const std::string& name, const std::vector<std::string>& all_args) {
  Command cmd{name,
              "[--workload NAME[,NAME...] [workload options]] [--np LIST] [--pairs R] [-o RESULTS.h5]\n"
              "       [--csv FILE] [--launcher CMD] [--mca KEY=VALUE]... [--resume] [--time-regex REGEX]\n"
              "       [--fail-above PCT [--allow-inconclusive] [--json FILE] [--junit FILE]] [-- COMMAND ARGS...]",
              "Measures what monitoring costs an application: for each process count and each of R pairs, one\n"
              "launch with monitoring off and one with it on, in random order. A built-in workload (stencil, cg,\n"
              "lu, bt of mpimon-workload) is timed by its own report; any other MPI command (after --) by the\n"
              "wall time of its launch. Messages per process and per second come from the merged monitoring\n"
              "dumps of the on launches. Prints RR-9038's Table 1 (times, messages, overhead with its 95 % CI,\n"
              "t-test and Wilcoxon p) and writes it as CSV and, with every launch, to RESULTS.h5 (docs/apps.md).\n"
              "With --fail-above PCT it is a gate for an application's CI: exit code 6 when an overhead is shown to\n"
              "be a cost that may exceed PCT, 7 when its interval decides nothing, 0 when the whole interval lies\n"
              "below PCT (docs/gate.md)."};
  auto dashes = std::find(all_args.begin(), all_args.end(), "--");
  const std::vector<std::string> args(all_args.begin(), dashes);
  const std::vector<std::string> command(dashes == all_args.end() ? dashes : dashes + 1, all_args.end());
  return run_command(cmd, [&] {
    AppSweep s;
    std::string np_list, workloads, classes, computes, compute, grid, name_option, program, json, junit;
    std::uint32_t iterations = 0, vars = 0, points = 0;
    po::options_description options("Options");
    options.add_options()("workload", po::value(&workloads), "built-in workloads: stencil, cg, lu, bt (a list)")(
        "class", po::value(&classes)->default_value("small"), "problem classes of the workloads: small, medium, large")(
        "iterations", po::value(&iterations), "workload iterations (default: the class's)")(
        "grid", po::value(&grid), "stencil: NX,NY,NZ")("vars", po::value(&vars), "stencil: variables per point")(
        "points", po::value(&points), "stencil: 7 or 27")(
        "compute", po::value(&compute), "stencil: compute knob F >= 0 (larger: larger compute share)")(
        "compute-sweep", po::value(&computes), "stencil: one application per compute value, e.g. 0,1,4,16,64 (Fig. 3)")(
        "workload-program",
        po::value(&program)->default_value(default_workload_program(), "mpimon-workload of this build"),
        "the built-in workloads' program")("name", po::value(&name_option),
                                           "label of the command after -- (default: its file name)")(
        "workdir", po::value(&s.workdir), "working directory of the launches (default: the current one)")(
        "np", po::value(&np_list)->default_value("2"), "process counts")(
        "pairs", po::value(&s.pairs)->default_value(10), "launch pairs per application and process count")(
        "monitoring-mode", po::value(&s.h.monitoring_mode)->default_value(2),
        "pml_monitoring_enable of the on arm (2: internal and external told apart)")(
        "seed", po::value(&s.h.seed)->default_value(1), "seed of the arm order")(
        "launcher", po::value(&s.h.launcher)->default_value("mpirun"), "MPI launcher, e.g. srun")(
        "mca", po::value(&s.h.mca)->composing(), "KEY=VALUE added to every launch (repeatable)")(
        "bind", po::value(&s.h.bind)->default_value("auto"),
        "auto (core when the processes fit the cores, else none), core, none, launcher")(
        "timeout", po::value(&s.h.timeout)->default_value(600), "seconds before a launch is killed")(
        "output,o", po::value(&s.output)->default_value("apps.h5"), "results file")(
        "csv", po::value(&s.csv), "Table 1 as CSV (default: the results file with .csv)")(
        "resume", "continue the sweep recorded in the results file")(
        "time-regex", po::value(&s.time_regex),
        "a command's own reported time: the last match in its output, the first group in seconds (default: the "
        "launch's wall time)")("fail-above", po::value<double>(),
                               "gate: fail when the overhead may exceed PCT percent (exit codes 6, 7)")(
        "allow-inconclusive", "gate: an inconclusive interval does not fail (exit code 0, reported)")(
        "json", po::value(&json), "gate: JSON report")("junit", po::value(&junit), "gate: JUnit XML report");
    po::variables_map vm;
    if (!parse_options(cmd, args, options, {}, vm)) return kExitOk;
    s.resume = vm.count("resume") > 0;
    const bool gate = vm.count("fail-above") > 0;
    const double fail_above = gate ? vm["fail-above"].as<double>() : 0.0;
    if (gate && !(fail_above > 0)) throw po::error("--fail-above takes a percentage > 0");
    if (!gate && (vm.count("allow-inconclusive") || !json.empty() || !junit.empty())) {
      throw po::error("--allow-inconclusive, --json and --junit go with --fail-above PCT");
    }
    if (!s.time_regex.empty()) {
      if (command.empty()) throw po::error("--time-regex reads a command's output: give the command after --");
      try {
        std::regex check(s.time_regex);
      } catch (const std::regex_error& e) {
        throw po::error("--time-regex '" + s.time_regex + "' is not a regular expression: " + e.what());
      }
    }
    check_harness_settings(s.h);
    s.nps = split_positive_list(np_list, "np");
    if (s.pairs < 1) throw po::error("--pairs must be at least 1");
    if (workloads.empty() == command.empty()) {
      throw po::error("name either built-in workloads (--workload) or a command (after --), one of the two");
    }
    if (!workloads.empty()) {
      std::vector<std::string> common, stencil;
      if (iterations > 0) common = {"--iterations", std::to_string(iterations)};
      if (!grid.empty()) stencil.insert(stencil.end(), {"--grid", grid});
      if (vars > 0) stencil.insert(stencil.end(), {"--vars", std::to_string(vars)});
      if (points > 0) stencil.insert(stencil.end(), {"--points", std::to_string(points)});
      std::vector<std::string> sweep =
          computes.empty() ? std::vector<std::string>{} : split_list(computes, "compute-sweep");
      if (!compute.empty()) {
        if (!sweep.empty()) throw po::error("--compute and --compute-sweep exclude each other");
        sweep = {compute};
      }
      for (const auto& f : sweep) check_compute(f);
      auto names = split_list(workloads, "workload");
      if ((!stencil.empty() || !sweep.empty()) && std::find(names.begin(), names.end(), "stencil") == names.end()) {
        throw po::error("--grid, --vars, --points and --compute(-sweep) are stencil options: add --workload stencil");
      }
      s.apps = workload_apps(program, names, split_list(classes, "class"), common, stencil, sweep);
    } else {
      s.apps = {{name_option.empty() ? fs::path(command[0]).filename().string() : name_option, command, false}};
    }
    if (s.csv.empty()) s.csv = default_csv(s.output);
    if (plan(s).empty()) throw po::error("no launch to run: bt needs a square number of processes (--np 1,4,9,...)");

    const bool existed = fs::exists(s.output);
    if (existed && !s.resume)
      raise_error(Error::Kind::input, s.output, "exists: use --resume to continue it, or another -o");
    if (!existed) AppResults::create(s.output, configuration_of(s));
    AppResults results(s.output);
    const auto failure = run_sweep(s, results, name);
    auto launches = results.launches();
    if (failure) {
      const bool any_ok = std::any_of(launches.begin(), launches.end(), [](const auto& l) { return l.status == "ok"; });
      if (!existed && !any_ok) {
        fs::remove(s.output);
        raise_error(Error::Kind::input, failure->launch, failure->status + " (nothing else done; no results file)");
      }
      raise_error(Error::Kind::input, failure->launch,
                  failure->status + " (recorded in " + s.output + "; --resume retries it)");
    }
    auto rows = analyze_apps(launches);
    order_rows(rows, results.configuration().at("apps"));
    results.write_analysis(rows, app_pairs(launches));
    print_app_table(rows, gate ? fail_above / 100 : 0.05);
    write_file_atomically(s.csv, [&](std::ostream& o) { write_app_csv(rows, o); });
    std::printf("results: %s\ntable: %s\n", s.output.c_str(), s.csv.c_str());
    if (!gate) return kExitOk;
    return judge_and_report(rows, results.configuration(), fail_above, vm.count("allow-inconclusive") > 0, json, junit);
  });
}

}  // namespace mpimon::cli
