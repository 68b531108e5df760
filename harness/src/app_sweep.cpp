#include "mpimon/harness/app_sweep.hpp"

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <random>
#include <regex>
#include <set>
#include <sstream>

#include "mpimon/base/error.hpp"
#include "mpimon/base/version.hpp"
#include "mpimon/harness/locations.hpp"
#include "mpimon/harness/run.hpp"
#include "mpimon/matrices/merge.hpp"
#include "mpimon/models/workloads.hpp"
#include "mpimon/results/arms.hpp"

namespace mpimon::harness {

namespace fs = std::filesystem;

namespace {

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

const Arm& arm_named(const AppSweep& s, const std::string& name) {
  for (const auto& a : s.arms) {
    if (a.name == name) return a;
  }
  throw Error(Error::Kind::usage, "no arm named '" + name + "'");
}

AppLaunchRecord run_launch(const AppSweep& s, const App& app, const AppLaunchKey& key, std::uint32_t position,
                           std::string& output) {
  const Arm& arm = arm_named(s, key.arm);
  const ScratchDirectory scratch = launch_directory("app");
  const fs::path& dir = scratch.path();
  AppLaunchRecord record;
  record.key = key;
  record.position = position;
  const bool reported = !app.workload && !s.time_regex.empty();
  record.time_source = app.workload ? "workload" : reported ? "reported" : "wall";
  MpiLaunch l(s.h.launcher, key.np);
  bind_processes(l, key.np, s.h.bind);
  if (!arm.launcher_options.empty()) l.option(arm.launcher_options);
  for (const auto& [key_name, value] : arm.environment) l.environment(key_name, value);
  const fs::path statistics = dir / "reorder-stats.json";
  if (arm.reorder_statistics) l.environment("MPIMON_REORDER_STATS", statistics.string());
  if (arm.monitoring) {
    monitoring_on(l, s.h.monitoring_mode, (dir / "prof" / "run").string());
  } else {
    monitoring_off(l, s.h.mca);
  }
  user_mca(l, s.h.mca);
  l.program(app.argv[0], {app.argv.begin() + 1, app.argv.end()});
  record.command = l.text();
  const auto start = std::chrono::steady_clock::now();
  LaunchResult r = l.run(std::chrono::seconds(s.h.timeout), s.workdir);
  output = r.output;
  record.wall_seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  record.seconds = record.wall_seconds;
  record.status = failure_status(r, s.h.timeout);
  record.bindings = binding_lines(r.output);
  if (arm.reorder_statistics && fs::exists(statistics)) {
    std::ifstream in(statistics);
    record.reorder_stats.assign(std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>());
  }
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
    if (record.status.empty() && reported) {
      const auto seconds =
          reported_time(r.output, std::regex(s.time_regex), app.label + " np " + std::to_string(key.np));
      if (seconds) record.seconds = *seconds;
      if (!seconds) record.status = "no match of --time-regex '" + s.time_regex + "' in the output";
    }
    if (record.status.empty()) record.status = arm.monitoring ? read_dumps(dir, key.np, record) : "ok";
  } catch (const Error& e) {
    record.status = std::string("unreadable output: ") + e.what();
  }
  return record;
}

// The ranks a rankfile places: the R of each `rank R=...` line.
std::set<std::uint32_t> rankfile_ranks(const std::string& text) {
  static const std::regex line(R"(^\s*rank\s+([0-9]{1,9})\s*=)");
  std::set<std::uint32_t> ranks;
  std::istringstream in(text);
  for (std::string l; std::getline(in, l);) {
    std::smatch m;
    if (std::regex_search(l, m, line)) ranks.insert(static_cast<std::uint32_t>(std::stoul(m[1].str())));
  }
  return ranks;
}

std::string read_rankfile(const std::string& path, std::uint32_t np) {
  std::ifstream in(path);
  if (!fs::is_regular_file(path) || !in)
    raise_error(Error::Kind::input, path, "cannot read this rankfile (--rankfile)");
  std::ostringstream text;
  text << in.rdbuf();
  const auto ranks = rankfile_ranks(text.str());
  for (std::uint32_t r = 0; r < np; ++r) {
    if (!ranks.count(r)) {
      raise_error(Error::Kind::input, path,
                  "no 'rank " + std::to_string(r) + "=' line: the rankfile places fewer than the " +
                      std::to_string(np) + " processes of --np (mpirun would refuse it)");
    }
  }
  return text.str();
}

}  // namespace

std::vector<Arm> monitoring_arms() {
  return {{std::string(kArmOff), false, {}, "monitoring off: the pml, osc and coll monitoring components excluded"},
          {std::string(kArmOn), true, {}, "monitoring on: pml_monitoring_enable, dumps merged"}};
}

std::vector<Arm> preload_arms(const std::string& library) {
  if (!fs::is_regular_file(library)) raise_error(Error::Kind::input, library, "no such library (--preload)");
  const std::string absolute = fs::absolute(library).lexically_normal().string();
  return {{std::string(kArmMonitored), true, {}, "monitoring on, nothing preloaded"},
          {std::string(kArmPreloaded),
           true,
           {},
           "monitoring on, " + absolute + " preloaded (LD_PRELOAD)",
           {{"LD_PRELOAD", absolute}}}};
}

std::vector<Arm> rankfile_arms(const std::string& rankfile_a, const std::string& rankfile_b, std::uint32_t np,
                               const std::string& launcher) {
  return placement_arms({"rankfile:" + rankfile_a, "rankfile:" + rankfile_b}, np, launcher);
}

const std::vector<PlacementKind>& placement_kinds() {
  static const std::vector<PlacementKind> kinds = {
      {"launcher", "the launcher's own placement, nothing added", [](Arm&) {}},
      {"reorder",
       "libmpimon-reorder.so preloaded: the MPI topology constructors with reorder=1 renumber the ranks, and so do "
       "the application's mpimon_reorder calls (docs/reorder.md)",
       [](Arm& arm) {
         arm.environment = {{"LD_PRELOAD", find_reorder_library()}};
         arm.reorder_statistics = true;
       }},
      {"reorder-off",
       "MPIMON_REORDER=off: an application linking libmpimon-reorder keeps its order (mpimon_reorder returns a "
       "duplicate at once)",
       [](Arm& arm) {
         arm.environment = {{"MPIMON_REORDER", "off"}};
       }},
      {"treematch", "Open MPI's topo/treematch component (--mca topo treematch): the MPI library's own reorder=1",
       [](Arm& arm) {
         arm.launcher_options = {"--mca", "topo", "treematch"};
       }},
  };
  return kinds;
}

std::string placement_kind_names() {
  std::string names;
  for (const auto& k : placement_kinds()) names += (names.empty() ? "" : ", ") + std::string(k.name);
  return names + ", rankfile:FILE";
}

std::vector<Arm> placement_arms(const std::vector<std::string>& specs, std::uint32_t np, const std::string& launcher) {
  if (specs.size() != 2) {
    throw Error(Error::Kind::usage,
                "give exactly two placements, A then B (" + std::to_string(specs.size()) + " given)");
  }
  const bool rankfiles = specs[0].rfind("rankfile:", 0) == 0 && specs[1].rfind("rankfile:", 0) == 0;
  if (const LauncherFlags& flags = launcher_flags(launcher); flags.kind != LauncherKind::open_mpi) {
    throw Error(
        Error::Kind::usage,
        std::string(rankfiles ? "--rankfile" : "--arm") + " is an option of Open MPI's mpirun or mpiexec, not of " +
            std::string(flags.name) + " (--launcher '" + launcher + "')" +
            (flags.kind == LauncherKind::slurm ? "; with Slurm: mpirun inside salloc, or mpimon place --slurm-hostfile"
                                               : ""));
  }
  std::vector<Arm> arms;
  std::vector<std::string> texts;
  for (const auto& spec : specs) {
    const std::string name = arms.empty() ? "A" : "B";
    if (spec.rfind("rankfile:", 0) == 0) {
      const std::string path = spec.substr(std::strlen("rankfile:"));
      texts.push_back(read_rankfile(path, np));
      const std::string absolute = fs::absolute(path).lexically_normal().string();
      arms.push_back(
          {name, false, {"--rankfile", absolute, "--report-bindings"}, "rankfile " + absolute + ":\n" + texts.back()});
      continue;
    }
    const auto kind = std::find_if(placement_kinds().begin(), placement_kinds().end(),
                                   [&](const PlacementKind& k) { return spec == k.name; });
    if (kind == placement_kinds().end()) {
      throw Error(Error::Kind::usage, "--arm takes " + placement_kind_names() + ", not '" + spec + "'");
    }
    texts.push_back(spec);
    Arm arm{name, false, {}, spec + ": " + kind->summary};
    kind->add_to(arm);
    arms.push_back(std::move(arm));
  }
  if (texts[0] == texts[1]) {
    throw Error(Error::Kind::usage, rankfiles
                                        ? "--rankfile " + specs[0].substr(9) + " and --rankfile " + specs[1].substr(9) +
                                              " hold the same placement (identical text): nothing to compare"
                                        : "the two arms are the same placement (" + specs[0] + "): nothing to compare");
  }
  return arms;
}

std::string binding_lines(const std::string& output) {
  static const std::regex report(R"(\b[Rr]ank [0-9]+ (is not bound|bound to))");
  std::string lines;
  std::istringstream in(output);
  for (std::string l; std::getline(in, l);) {
    if (std::regex_search(l, report)) lines += (lines.empty() ? "" : "\n") + l;
  }
  return lines;
}

bool is_square(std::uint32_t n) {
  std::uint32_t r = 0;
  while ((r + 1) * (r + 1) <= n) ++r;
  return r * r == n;
}

std::string default_workload_program() {
  const std::string program = own_file("mpimon-workload");
  return fs::exists(program) ? program : "mpimon-workload";  // else looked up in PATH
}

// The built-in workloads the options name: one per workload and class, and for a workload that
// takes the shape options (the stencil) one per value of --compute-sweep.
std::vector<App> workload_apps(const std::string& program, const std::vector<std::string>& workloads,
                               const std::vector<std::string>& classes, const std::vector<std::string>& common,
                               const std::vector<std::string>& stencil, const std::vector<std::string>& computes) {
  std::vector<App> apps;
  for (const auto& c : classes) {
    if (!mpimon::is_workload_class(c)) {
      throw Error(Error::Kind::usage, "--class takes " + mpimon::workload_class_list() + ", not '" + c + "'");
    }
  }
  for (const auto& w : workloads) {
    const WorkloadKind* kind = find_workload(w);
    if (!kind) throw Error(Error::Kind::usage, "--workload takes " + workload_list() + ", not '" + w + "'");
    for (const auto& c : classes) {
      std::vector<std::string> argv{program, "--workload", w, "--class", c};
      argv.insert(argv.end(), common.begin(), common.end());
      const std::string label = w + "." + c;
      if (!kind->shape_options) {
        apps.push_back({label, argv, true, kind->square_processes});
        continue;
      }
      argv.insert(argv.end(), stencil.begin(), stencil.end());
      if (computes.empty()) apps.push_back({label, argv, true, kind->square_processes});
      for (const auto& f : computes) {
        auto with = argv;
        with.insert(with.end(), {"--compute", f});
        apps.push_back({label + ".compute=" + f, with, true, kind->square_processes});
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
  std::vector<std::string> arms;
  for (const auto& a : s.arms) arms.push_back(a.name);
  auto config = harness_configuration(s.h);
  for (const auto& a : s.arms) config["arm_" + a.name] = a.description;
  config.merge(std::map<std::string, std::string>{
      {"apps", join(labels)},
      {"programs", join(lines, "\n")},
      {"np", join(nps)},
      {"pairs", std::to_string(s.pairs)},
      {"arms", join(arms)},
      {"workdir", s.workdir.empty() ? fs::current_path().string() : s.workdir},
      {"time_source",
       "workload: the timed loop's wall time the built-in workload reports ('seconds' of its "
       "mpimon-workload line); wall: the wall time of the whole launch measured by the harness, "
       "mpirun start-up and MPI_Init/MPI_Finalize included; reported: the time the command prints, "
       "the last match of time_regex in its output"},
      {"time_regex", s.time_regex},
      {"messages",
       "point-to-point messages of the merged dumps of each launch with monitoring on (pml_monitoring_enable_output "
       "3): "
       "external (the application's own) + internal (collectives decomposed into point-to-point; told "
       "apart with monitoring mode 2, counted as external with mode 1); per process = total / np; per "
       "second = total / mean on time, as RR-9038's Table 1"},
      {"summary_statistic",
       "one time per launch; pairs analysed with a paired t-test (95 % CI) and Wilcoxon signed-rank; "
       "Table 1 times are means over pairs (medians also recorded)"}});
  return config;
}

std::vector<Planned> plan(const AppSweep& s) {
  std::vector<Planned> out;
  std::mt19937_64 rng(s.h.seed);
  std::vector<std::string> arms;
  for (const auto& a : s.arms) arms.push_back(a.name);
  for (const auto& app : s.apps) {
    for (auto np : s.nps) {
      if (app.square_np && !is_square(np)) continue;
      for (std::uint32_t pair = 1; pair <= s.pairs; ++pair) {
        auto order = arm_order(arms, rng);
        for (std::uint32_t pos = 0; pos < order.size(); ++pos)
          out.push_back({&app, {app.label, np, pair, order[pos]}, pos});
      }
    }
  }
  return out;
}

void check_launches_planned(const AppSweep& s) {
  if (!plan(s).empty()) return;
  std::vector<std::string> square;
  for (const auto& app : s.apps) {
    if (app.square_np) square.push_back(app.label);
  }
  throw Error(Error::Kind::usage,
              "no launch to run" +
                  (square.empty() ? std::string()
                                  : ": " + join(square, ", ") + " need a square number of processes (--np 1,4,9,...)"));
}

FailedLaunches run_sweep(const AppSweep& s, AppResults& results, const std::string& name) {
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
  FailedLaunches failed(logs_directory(s.output));
  for (const auto& p : launches) {
    if (done.count(p.key)) continue;
    std::string output;
    AppLaunchRecord r = run_launch(s, *p.app, p.key, p.position, output);
    results.append(r);
    failed.ran();
    const std::string what =
        p.key.app + " np " + std::to_string(p.key.np) + " pair " + std::to_string(p.key.pair) + " " + p.key.arm;
    progress.done(what + std::string(p.key.arm.size() < 3 ? 3 - p.key.arm.size() : 0, ' '),
                  r.status == "ok" ? "ok" : "FAILED", r.seconds);
    if (r.status == "ok") continue;
    failed.add(what, r.command, r.status, output);
    if (!s.keep_going) {
      failed.stopped = true;
      break;
    }
  }
  return failed;
}

AppSweepRun run_app_sweep(const AppSweep& s, const std::string& name) {
  const bool existed = fs::exists(s.output);
  if (existed && !s.resume)
    raise_error(Error::Kind::input, s.output, "exists: use --resume to continue it, or another -o");
  if (!existed) AppResults::create(s.output, configuration_of(s));
  AppResults results(s.output);
  if (existed) {
    // Launches of other arms would be paired with these: a resume continues the same comparison.
    const auto recorded = results.configuration();
    for (const auto& [key, value] : configuration_of(s)) {
      if (key != "arms" && key.rfind("arm_", 0) != 0) continue;
      auto it = recorded.find(key);
      if (it != recorded.end() && it->second != value) {
        raise_error(Error::Kind::input, s.output,
                    "was recorded with other arms (" + key + " differs): --resume continues the same comparison");
      }
    }
  }
  FailedLaunches failed = run_sweep(s, results, name);
  auto launches = results.launches();
  const bool any_ok = std::any_of(launches.begin(), launches.end(), [](const auto& l) { return l.status == "ok"; });
  if (failed.count() > 0 && !existed && !any_ok) {
    fs::remove(s.output);
    failed.raise_if_any("no launch succeeded: no results file");
  }
  if (failed.stopped) failed.raise_if_any();
  AppSweepRun run{std::move(launches), std::move(failed), {s.arms.at(0).name, s.arms.at(1).name}, {}, {}};
  run.rows = analyze_apps(run.launches, 0.95, run.arms);
  run.configuration = results.configuration();
  order_rows(run.rows, run.configuration.at("apps"));
  results.write_analysis(run.rows, app_pairs(run.launches, run.arms), run.arms);
  return run;
}

}  // namespace mpimon::harness
