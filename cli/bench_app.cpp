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

#include "app_report.hpp"
#include "cli_support.hpp"
#include "commands.hpp"
#include "launch.hpp"
#include "launch_pairs.hpp"
#include "mpimon/apps.hpp"
#include "mpimon/error.hpp"
#include "mpimon/merge.hpp"
#include "mpimon/version.hpp"

namespace mpimon::cli {

namespace fs = std::filesystem;

namespace {

const char* const kWorkloads[] = {"stencil", "cg", "lu", "bt"};

/// One application of the sweep: its label and the program line that runs it.
struct App {
  std::string label;
  std::vector<std::string> argv;  ///< program and arguments (after the launcher's)
  bool workload = false;          ///< a built-in workload: time and comm share from its report
  bool square_np = false;         ///< runs only on a square number of processes (bt)
};

bool is_square(std::uint32_t n) {
  std::uint32_t r = 0;
  while ((r + 1) * (r + 1) <= n) ++r;
  return r * r == n;
}

struct AppSweep {
  HarnessSettings h;
  std::vector<App> apps;
  std::vector<std::uint32_t> nps;
  std::uint32_t pairs = 10;
  std::string output, csv, workdir;
  bool resume = false;
};

std::string default_workload_program() {
  const fs::path build = fs::path(MPIMON_DEFAULT_PROGRAMS_DIR).parent_path();
  for (const char* dir : {"bench", "validation", "bench/workloads"}) {
    if (fs::exists(build / dir / "mpimon-workload")) return (build / dir / "mpimon-workload").string();
  }
  return "mpimon-workload";  // looked up in PATH
}

// The built-in workloads the options name: one per workload and class, and for the stencil one per
// value of --compute-sweep.
std::vector<App> workload_apps(const std::string& program, const std::vector<std::string>& workloads,
                               const std::vector<std::string>& classes, const std::vector<std::string>& common,
                               const std::vector<std::string>& stencil, const std::vector<std::string>& computes) {
  std::vector<App> apps;
  for (const auto& w : workloads) {
    if (std::find(std::begin(kWorkloads), std::end(kWorkloads), w) == std::end(kWorkloads)) {
      throw po::error("--workload takes stencil, cg, lu and bt, not '" + w + "'");
    }
    for (const auto& c : classes) {
      std::vector<std::string> argv{program, "--workload", w, "--class", c};
      argv.insert(argv.end(), common.begin(), common.end());
      const std::string label = w + "." + c;
      if (w != "stencil") {
        apps.push_back({label, argv, true, w == "bt"});
        continue;
      }
      argv.insert(argv.end(), stencil.begin(), stencil.end());
      if (computes.empty()) apps.push_back({label, argv, true});
      for (const auto& f : computes) {
        auto with = argv;
        with.insert(with.end(), {"--compute", f});
        apps.push_back({label + ".compute=" + f, with, true});
      }
    }
  }
  return apps;
}

std::map<std::string, std::string> configuration_of(const AppSweep& s) {
  std::vector<std::string> nps, labels, lines;
  for (auto n : s.nps) nps.push_back(std::to_string(n));
  for (const auto& a : s.apps) {
    labels.push_back(a.label);
    lines.push_back(a.label + ": " + join(a.argv, " "));
  }
  auto config = harness_configuration(s.h);
  config.merge(std::map<std::string, std::string>{
      {"apps", join(labels)},
      {"programs", join(lines, "\n")},
      {"np", join(nps)},
      {"pairs", std::to_string(s.pairs)},
      {"arms", "off,on"},
      {"workdir", s.workdir.empty() ? fs::current_path().string() : s.workdir},
      {"time_source",
       "workload: the timed loop's wall time the built-in workload reports ('seconds' of its "
       "mpimon-workload line); wall: the wall time of the whole launch measured by the harness, "
       "mpirun start-up and MPI_Init/MPI_Finalize included"},
      {"messages",
       "point-to-point messages of the merged dumps of each on launch (pml_monitoring_enable_output 3): "
       "external (the application's own) + internal (collectives decomposed into point-to-point; told "
       "apart with monitoring mode 2, counted as external with mode 1); per process = total / np; per "
       "second = total / mean on time, as RR-9038's Table 1"},
      {"summary_statistic",
       "one time per launch; pairs analysed with a paired t-test (95 % CI) and Wilcoxon signed-rank; "
       "Table 1 times are means over pairs (medians also recorded)"}});
  return config;
}

// The merged dumps of one "on" launch: totals per class, or why there are none.
std::string read_dumps(const fs::path& dir, std::uint32_t np, AppLaunchRecord& record) {
  std::vector<std::string> files;
  for (const auto& e : fs::directory_iterator(dir / "prof")) {
    if (e.path().extension() == ".prof") files.push_back(e.path().string());
  }
  if (files.empty()) {
    return "monitoring did not run: no dump written (not an MPI program, or monitoring disabled: an --mca pml "
           "list without 'monitoring' disables it silently, use ob1,monitoring)";
  }
  MergeOptions options;
  options.generator = std::string("mpimon ") + kVersion;
  auto dumps = merge_prof_files(files, (dir / "merged.h5").string(), options);
  if (dumps.size() != 1 || dumps[0].ranks_present != np) {
    return "dumps of " + std::to_string(files.size()) + " rank files, expected one dump of " + std::to_string(np);
  }
  TrafficTotals t;
  for (std::size_t i = 0; i < kTrafficClassCount; ++i) {
    t.messages[i] = dumps[0].totals[i].messages;
    t.bytes[i] = dumps[0].totals[i].bytes;
  }
  record.traffic = t;
  return "ok";
}

AppLaunchRecord run_launch(const AppSweep& s, const App& app, const AppLaunchKey& key, std::uint32_t position) {
  const fs::path dir = fresh_launch_directory("app");
  AppLaunchRecord record;
  record.key = key;
  record.position = position;
  record.time_source = app.workload ? "workload" : "wall";
  MpiLaunch l(s.h.launcher, key.np);
  bind_processes(l, key.np, s.h.bind);
  if (key.arm == "on") {
    monitoring_on(l, s.h.monitoring_mode, (dir / "prof" / "run").string());
  } else {
    monitoring_off(l, s.h.mca);
  }
  user_mca(l, s.h.mca);
  l.program(app.argv[0], {app.argv.begin() + 1, app.argv.end()});
  record.command = l.text();
  const auto start = std::chrono::steady_clock::now();
  LaunchResult r = l.run(std::chrono::seconds(s.h.timeout), s.workdir);
  record.wall_seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  record.seconds = record.wall_seconds;
  record.status = failure_status(r, s.h.timeout);
  try {
    if (record.status.empty() && app.workload) {
      auto report = find_workload_report(r.output, app.label + " np " + std::to_string(key.np));
      if (!report) {
        record.status = "no 'mpimon-workload:' line in the output (not the built-in workload program?)";
      } else {
        record.report = report->json;
        record.seconds = report->seconds;
        record.comm_share = report->comm_share;
        if (!report->passed) record.status = "the workload's check failed: " + report->json;
      }
    }
    if (record.status.empty()) record.status = key.arm == "on" ? read_dumps(dir, key.np, record) : "ok";
  } catch (const Error& e) {
    record.status = std::string("unreadable output: ") + e.what();
  }
  fs::remove_all(dir);
  return record;
}

struct Planned {
  const App* app;
  AppLaunchKey key;
  std::uint32_t position;
};

std::vector<Planned> plan(const AppSweep& s) {
  std::vector<Planned> out;
  std::mt19937_64 rng(s.h.seed);
  for (const auto& app : s.apps) {
    for (auto np : s.nps) {
      if (app.square_np && !is_square(np)) continue;
      for (std::uint32_t pair = 1; pair <= s.pairs; ++pair) {
        auto order = arm_order({"off", "on"}, rng);
        for (std::uint32_t pos = 0; pos < order.size(); ++pos) out.push_back({&app, {app.label, np, pair, order[pos]}, pos});
      }
    }
  }
  return out;
}

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

struct Failure {
  std::string launch, status;
};

// Runs the planned launches; stops at the first that fails (a configuration that fails once fails
// every time; --resume retries). Returns the failure, if any.
std::optional<Failure> run_sweep(const AppSweep& s, AppResults& results, const std::string& name) {
  auto done = results.completed();
  auto launches = plan(s);
  for (const auto& app : s.apps) {
    for (auto np : s.nps) {
      if (app.square_np && !is_square(np)) {
        std::fprintf(stderr, "%s: %s needs a square number of processes: np %u left out\n", name.c_str(),
                     app.label.c_str(), np);
      }
    }
  }

  std::size_t todo = 0;
  for (const auto& p : launches) todo += done.count(p.key) ? 0 : 1;
  std::fprintf(stderr, "%s: %zu launches planned, %zu already in %s\n", name.c_str(), launches.size(),
               launches.size() - todo, s.output.c_str());
  Progress progress(todo);
  for (const auto& p : launches) {
    if (done.count(p.key)) continue;
    AppLaunchRecord r = run_launch(s, *p.app, p.key, p.position);
    results.append(r);
    const std::string what =
        p.key.app + " np " + std::to_string(p.key.np) + " pair " + std::to_string(p.key.pair) + " " + p.key.arm;
    progress.done(what + (p.key.arm == "on" ? " " : ""), r.status == "ok" ? "ok" : "FAILED", r.seconds);
    if (r.status != "ok") return Failure{what, r.status};
  }
  return std::nullopt;
}

}  // namespace

int bench_app_command(const std::string& name, const std::vector<std::string>& all_args) {
  Command cmd{name,
              "[--workload NAME[,NAME...] [workload options]] [--np LIST] [--pairs R] [-o RESULTS.h5]\n"
              "       [--csv FILE] [--launcher CMD] [--mca KEY=VALUE]... [--resume] [-- COMMAND ARGS...]",
              "Measures what monitoring costs an application: for each process count and each of R pairs, one\n"
              "launch with monitoring off and one with it on, in random order. A built-in workload (stencil, cg,\n"
              "lu, bt of mpimon-workload) is timed by its own report; any other MPI command (after --) by the\n"
              "wall time of its launch. Messages per process and per second come from the merged monitoring\n"
              "dumps of the on launches. Prints RR-9038's Table 1 (times, messages, overhead with its 95 % CI,\n"
              "t-test and Wilcoxon p) and writes it as CSV and, with every launch, to RESULTS.h5 (docs/apps.md)."};
  auto dashes = std::find(all_args.begin(), all_args.end(), "--");
  const std::vector<std::string> args(all_args.begin(), dashes);
  const std::vector<std::string> command(dashes == all_args.end() ? dashes : dashes + 1, all_args.end());
  return run_command(cmd, [&] {
    AppSweep s;
    std::string np_list, workloads, classes, computes, compute, grid, name_option, program;
    std::uint32_t iterations = 0, vars = 0, points = 0;
    po::options_description options("Options");
    options.add_options()("workload", po::value(&workloads), "built-in workloads: stencil, cg, lu, bt (a list)")(
        "class", po::value(&classes)->default_value("small"), "problem classes of the workloads: small, medium, large")(
        "iterations", po::value(&iterations), "workload iterations (default: the class's)")(
        "grid", po::value(&grid), "stencil: NX,NY,NZ")("vars", po::value(&vars), "stencil: variables per point")(
        "points", po::value(&points), "stencil: 7 or 27")(
        "compute", po::value(&compute), "stencil: compute knob F >= 0 (larger: larger compute share)")(
        "compute-sweep", po::value(&computes), "stencil: one application per compute value, e.g. 0,1,4,16,64 (Fig. 3)")(
        "workload-program", po::value(&program)->default_value(default_workload_program()),
        "the built-in workloads' program")(
        "name", po::value(&name_option), "label of the command after -- (default: its file name)")(
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
        "resume", "continue the sweep recorded in the results file");
    po::variables_map vm;
    if (!parse_options(cmd, args, options, {}, vm)) return kExitOk;
    s.resume = vm.count("resume") > 0;
    check_harness_settings(s.h);
    for (const auto& n : split_list(np_list, "np")) s.nps.push_back(static_cast<std::uint32_t>(std::stoul(n)));
    if (workloads.empty() == command.empty()) {
      throw po::error("name either built-in workloads (--workload) or a command (after --), one of the two");
    }
    if (!workloads.empty()) {
      std::vector<std::string> common, stencil;
      if (iterations > 0) common = {"--iterations", std::to_string(iterations)};
      if (!grid.empty()) stencil.insert(stencil.end(), {"--grid", grid});
      if (vars > 0) stencil.insert(stencil.end(), {"--vars", std::to_string(vars)});
      if (points > 0) stencil.insert(stencil.end(), {"--points", std::to_string(points)});
      std::vector<std::string> sweep = computes.empty() ? std::vector<std::string>{} : split_list(computes, "compute-sweep");
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
    if (existed && !s.resume) raise_error(Error::Kind::input, s.output, "exists: use --resume to continue it, or another -o");
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
    print_app_table(rows);
    write_file_atomically(s.csv, [&](std::ostream& o) { write_app_csv(rows, o); });
    std::printf("results: %s\ntable: %s\n", s.output.c_str(), s.csv.c_str());
    return kExitOk;
  });
}

}  // namespace mpimon::cli
