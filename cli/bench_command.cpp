// `mpimon bench overhead`: pairs of launches of mpimon-overhead-bench, monitoring off and on (and
// the other arms), in random order within each pair; every launch saved as it completes; the
// paired analysis at the end (docs/overhead.md).

#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <random>
#include <thread>
#include <sstream>

#include "cli_support.hpp"
#include "commands.hpp"
#include "launch.hpp"
#include "launch_pairs.hpp"
#include "mpimon/error.hpp"
#include "mpimon/overhead.hpp"
#include "mpimon/version.hpp"
#include "overhead_report.hpp"
#include "overhead_sweep.hpp"

namespace mpimon::cli {

namespace fs = std::filesystem;

namespace {

std::string read_file(const std::string& path) {
  std::ifstream in(path);
  return {std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
}

}  // namespace

std::map<std::string, std::string> configuration_of(const Sweep& s) {
  std::vector<std::string> nps;
  for (auto n : s.nps) nps.push_back(std::to_string(n));
  auto config = harness_configuration(s.h);
  config.merge(std::map<std::string, std::string>{
          {"ops", s.ops},
          {"sizes", s.sizes},
          {"np", join(nps)},
          {"pairs", std::to_string(s.pairs)},
          {"arms", join(s.arms)},
          {"transports", join(s.transports)},
          {"transport_note", "tcp = --mca btl tcp,self over loopback, a stand-in for a distributed-memory network"},
          {"iterations", std::to_string(s.iterations)},
          {"warmup", std::to_string(s.warmup)},
          {"program", s.program},
          {"calibration_delay_ns", std::to_string(s.calibrate_ns)},
          {"summary_statistic", "per launch and benchmark: interquartile mean over iterations of the per-iteration "
                                "maximum over ranks; pairs analysed with a paired t-test and Wilcoxon signed-rank"}});
  return config;
}

namespace {

// The command line of one launch, and where it leaves its outputs.
MpiLaunch launch_command(const Sweep& s, const LaunchKey& key, const fs::path& dir) {
  MpiLaunch l(s.h.launcher, key.np);
  bind_processes(l, key.np, s.h.bind);
  if (key.transport == "tcp") l.mca("btl", "tcp,self");
  if (key.arm == "on" || key.arm == "mpit_off") {
    monitoring_on(l, s.h.monitoring_mode, key.arm == "on" ? (dir / "prof" / "run").string() : "");
  } else {
    monitoring_off(l, s.h.mca);
  }
  if (s.calibrate_ns > 0) {
    // Calibration: both arms load the delay library, so its wrapper costs the same in both and
    // the difference is the injected delay alone. (-x is Open MPI's way to export to the ranks.)
    const std::uint64_t ns = key.arm == "off" ? 0 : s.calibrate_ns;
    l.option({"-x", "LD_PRELOAD=" + s.delay_library, "-x", "MPIMON_DELAY_NS=" + std::to_string(ns), "-x",
              "MPIMON_DELAY_REPORT=" + (dir / "delay").string()});
  }
  for (const auto& kv : s.environment) l.option({"-x", kv});
  if (key.arm == "on" || key.arm == "mpit_off") {
    for (const auto& kv : s.on_environment) l.option({"-x", kv});
  }
  user_mca(l, s.h.mca);
  std::vector<std::string> args{"--ops", s.ops, "--sizes", s.sizes, "--iterations", std::to_string(s.iterations),
                                "--warmup", std::to_string(s.warmup),
                                // the same seed for both arms of a pair: the same order of configurations
                                "--seed", std::to_string(s.h.seed * 1000003u + key.pair), "--samples",
                                (dir / "samples.txt").string(), "--benchmark_out=" + (dir / "bench.json").string(),
                                "--benchmark_out_format=json"};
  if (key.arm == "mpit_off") args.push_back("--mpit-off");
  return l.program(s.program, args);
}

// The delay library's own timing of its spins, over all ranks (files PREFIX.RANK: "spins total_ns").
double spin_mean(const std::string& prefix, std::uint32_t np) {
  long long spins = 0, total = 0;
  for (std::uint32_t r = 0; r < np; ++r) {
    std::ifstream in(prefix + "." + std::to_string(r));
    long long n = 0, ns = 0;
    if (!(in >> n >> ns)) raise_error(Error::Kind::input, prefix + "." + std::to_string(r), "no delay report");
    spins += n;
    total += ns;
  }
  if (spins == 0) raise_error(Error::Kind::input, prefix, "the delay library made no delay");
  return static_cast<double>(total) / static_cast<double>(spins);
}

LaunchRecord run_launch(const Sweep& s, const LaunchKey& key, std::uint32_t position) {
  fs::path dir = fresh_launch_directory("bench");
  LaunchRecord record;
  record.key = key;
  record.position = position;
  record.status = "ok";
  MpiLaunch launch = launch_command(s, key, dir);
  record.command = launch.text();
  const auto start = std::chrono::steady_clock::now();
  LaunchResult r = launch.run(std::chrono::seconds(s.h.timeout));
  record.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  if (std::string failed = failure_status(r, s.h.timeout); !failed.empty()) {
    record.status = failed;
  } else if (key.arm == "on" && !fs::exists(dir / "prof" / "run.0.prof")) {
    record.status = "monitoring did not run: no dump written";
  } else {
    try {
      record.benchmarks = read_bench_samples((dir / "samples.txt").string());
      record.benchmark_json = read_file((dir / "bench.json").string());
      if (s.calibrate_ns > 0) record.spin_mean_ns = spin_mean((dir / "delay").string(), key.np);
    } catch (const Error& e) {
      record.status = std::string("unreadable output: ") + e.what();
    }
  }
  fs::remove_all(dir);
  return record;
}

// Did the harness find the injected cost? Compared with the cost the library measured itself.
void print_calibration(const std::vector<OverheadCell>& cells,
                       const std::map<std::pair<std::string, std::uint32_t>, double>& injected, std::uint64_t nominal) {
  std::size_t inside = 0, total = 0;
  std::printf("\ncalibration: nominal delay %llu ns per call\n", static_cast<unsigned long long>(nominal));
  for (const auto& [key, ns] : injected) {
    std::printf("  %s np %u: the library measured %.1f ns added per call (its spins, delay arm minus off arm)\n",
                key.first.c_str(), key.second, ns);
  }
  for (const auto& c : cells) {
    auto it = injected.find({c.transport, c.np});
    if (it == injected.end() || !c.analysis.t_test) continue;
    ++total;
    const Interval ci = c.analysis.t_test->ci;
    if (ci.low <= it->second && it->second <= ci.high) ++inside;
  }
  std::printf("  the injected cost lies inside the 95 %% CI of %zu of %zu cells\n", inside, total);
}

}  // namespace

std::string default_dir(const char* subdir) {
  return (fs::path(MPIMON_DEFAULT_PROGRAMS_DIR).parent_path() / subdir).string();
}

void run_sweep(const std::string& name, const Sweep& s) {
  if (fs::exists(s.output) && !s.resume) {
    raise_error(Error::Kind::input, s.output, "exists: use --resume to continue it, or another -o");
  }
  if (!fs::exists(s.output)) OverheadResults::create(s.output, configuration_of(s));
  OverheadResults results(s.output);
  auto done = results.completed();

  // Every launch of the sweep, arms shuffled within each pair from the seed.
  std::vector<std::pair<LaunchKey, std::uint32_t>> plan;
  std::mt19937_64 rng(s.h.seed);
  for (const auto& t : s.transports) {
    for (auto np : s.nps) {
      for (std::uint32_t pair = 1; pair <= s.pairs; ++pair) {
        std::vector<std::string> order = arm_order(s.arms, rng);
        for (std::uint32_t pos = 0; pos < order.size(); ++pos) plan.push_back({{t, np, pair, order[pos]}, pos});
      }
    }
  }
  std::size_t todo = 0;
  for (const auto& [key, pos] : plan) todo += done.count(key) ? 0 : 1;
  std::fprintf(stderr, "%s: %zu launches planned, %zu already in %s\n", name.c_str(), plan.size(),
               plan.size() - todo, s.output.c_str());
  Progress progress(todo);
  for (const auto& [key, pos] : plan) {
    if (done.count(key)) continue;
    LaunchRecord r = run_launch(s, key, pos);
    results.append(r);
    char what[160];
    std::snprintf(what, sizeof what, "%s np %u pair %u %-8s", key.transport.c_str(), key.np, key.pair,
                  key.arm.c_str());
    progress.done(what, r.status, r.seconds);
  }
}

namespace {

int overhead(const std::string& name, const std::vector<std::string>& args) {
  Command cmd{name,
              "[--ops send,bcast,alltoall,put,get] [--sizes LIST|paper|quick] [--np LIST] [--pairs R]\n"
              "       [--launcher CMD] [--mca KEY=VALUE]... [-o RESULTS.h5] [--resume]",
              "Measures what monitoring costs: for each process count and each of R pairs, one launch of\n"
              "mpimon-overhead-bench with monitoring off (--mca pml,osc,coll ^monitoring) and one with it on\n"
              "(pml_monitoring_enable, dumping to files), plus monitoring loaded but stopped through MPI_T, in\n"
              "random order. Every launch's raw samples are saved as it completes; a paired t-test per\n"
              "operation and size ends the run (docs/overhead.md)."};
  return run_command(cmd, [&] {
    Sweep s;
    std::string np_list, arms, transports;
    po::options_description options("Options");
    options.add_options()("ops", po::value(&s.ops)->default_value("send,bcast,alltoall,put,get"), "operations")(
        "sizes", po::value(&s.sizes)->default_value("paper"), "message sizes in bytes, or paper (44 sizes) or quick")(
        "np", po::value(&np_list)->default_value("2"), "process counts")(
        "pairs", po::value(&s.pairs)->default_value(10), "launch pairs per process count")(
        "arms", po::value(&arms)->default_value("on,mpit_off"), "arms compared with off: on, mpit_off")(
        "transport", po::value(&transports)->default_value("shared"),
        "shared, tcp (btl tcp,self over loopback), or both")(
        "monitoring-mode", po::value(&s.h.monitoring_mode)->default_value(1), "pml_monitoring_enable of the on arms")(
        "iterations", po::value(&s.iterations)->default_value(1000), "timed iterations per benchmark")(
        "warmup", po::value(&s.warmup)->default_value(100), "untimed iterations first")(
        "seed", po::value(&s.h.seed)->default_value(1), "seed of the arm order and of the benchmark order")(
        "launcher", po::value(&s.h.launcher)->default_value("mpirun"), "MPI launcher, e.g. srun")(
        "mca", po::value(&s.h.mca)->composing(), "KEY=VALUE added to every launch (repeatable)")(
        "bind", po::value(&s.h.bind)->default_value("auto"),
        "auto (core when the processes fit the cores, else none), core, none, launcher")(
        "timeout", po::value(&s.h.timeout)->default_value(600), "seconds before a launch is killed")(
        "calibrate", po::value(&s.calibrate_ns)->default_value(0),
        "instead of monitoring, inject this many ns per call with the PMPI delay library")(
        "output,o", po::value(&s.output)->default_value("overhead.h5"), "results file")(
        "resume", "continue the sweep recorded in the results file")(
        "program", po::value(&s.program)->default_value(default_dir("bench") + "/mpimon-overhead-bench"),
        "the benchmark program")("delay-library",
                                 po::value(&s.delay_library)
                                     ->default_value(default_dir("bench") + "/libmpimon-pmpi-delay.so"),
                                 "the PMPI delay library for --calibrate");
    po::variables_map vm;
    if (!parse_options(cmd, args, options, {}, vm)) return kExitOk;
    s.resume = vm.count("resume") > 0;
    for (const auto& n : split_list(np_list, "np")) s.nps.push_back(static_cast<std::uint32_t>(std::stoul(n)));
    s.transports = split_list(transports, "transport");
    for (const auto& t : s.transports) {
      if (t != "shared" && t != "tcp") throw po::error("--transport takes shared and tcp, not '" + t + "'");
    }
    s.arms = {"off"};
    if (s.calibrate_ns > 0) {
      s.arms.push_back("delay" + std::to_string(s.calibrate_ns));
    } else {
      for (const auto& a : split_list(arms, "arms")) {
        if (a != "on" && a != "mpit_off") throw po::error("--arms takes on and mpit_off, not '" + a + "'");
        s.arms.push_back(a);
      }
    }
    check_harness_settings(s.h);
    if (!fs::exists(s.program)) raise_error(Error::Kind::input, s.program, "benchmark program not found (--program)");

    run_sweep(name, s);
    OverheadResults results(s.output);
    auto launches = results.launches();
    auto cells = analyze_overhead(launches);
    results.write_analysis(cells);
    print_analysis(cells);
    if (s.calibrate_ns > 0) print_calibration(cells, injected_cost(launches), s.calibrate_ns);
    std::printf("results: %s\n", s.output.c_str());
    return kExitOk;
  });
}

}  // namespace

int bench_command(const std::string& name, const std::vector<std::string>& args) {
  if (args.empty() || args[0] == "--help" || args[0] == "-h") {
    std::cout << "Usage: " << name << " overhead [options]   ('" << name << " overhead --help' for more)\n"
              << "       " << name << " app [options] [-- COMMAND ARGS...]   ('" << name << " app --help' for more)\n";
    return args.empty() ? kExitUsage : kExitOk;
  }
  if (args[0] == "overhead") return overhead(name + " overhead", {args.begin() + 1, args.end()});
  if (args[0] == "app") return bench_app_command(name + " app", {args.begin() + 1, args.end()});
  std::cerr << name << ": error: unknown benchmark '" << args[0] << "' (available: overhead, app)\n";
  return kExitUsage;
}

}  // namespace mpimon::cli
