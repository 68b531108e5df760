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
#include <set>
#include <sstream>
#include <thread>

#include "cli_support.hpp"
#include "commands.hpp"
#include "mpimon/base/error.hpp"
#include "mpimon/base/version.hpp"
#include "mpimon/harness/launch.hpp"
#include "mpimon/harness/launch_pairs.hpp"
#include "mpimon/harness/locations.hpp"
#include "mpimon/harness/overhead_sweep.hpp"
#include "mpimon/overhead_design/interleave.hpp"
#include "mpimon/overhead_design/operations.hpp"
#include "mpimon/overhead_design/sizes.hpp"
#include "mpimon/results/arms.hpp"
#include "mpimon/results/overhead.hpp"

namespace mpimon::cli {

using namespace mpimon::harness;

namespace fs = std::filesystem;

namespace {

// Did the harness find the injected cost? Compared with the cost the library measured itself.
void print_calibration(const std::vector<OverheadCell>& cells,
                       const std::map<std::pair<std::string, std::uint32_t>, double>& injected,
                       const std::string& requested) {
  std::size_t inside = 0, total = 0;
  std::printf("\ncalibration: %s per call\n", requested.c_str());
  for (const auto& [key, ns] : injected) {
    std::printf(
        "  %s np %u: the library measured %.2f ns added per call (its loop timed on its own, mean over ranks)\n",
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

int bench_overhead_command(const std::string& name, const std::vector<std::string>& args) {
  Command cmd{name,
              "[--ops send,bcast,alltoall,put,get] [--sizes " + sizes_synopsis() +
                  "] [--np LIST] [--pairs R]\n"
                  "       [--launcher CMD] [--mca KEY=VALUE]... [-o RESULTS.h5] [--resume] [--keep-going]",
              "Measures what monitoring costs: for each process count and each of R pairs, one launch of\n"
              "mpimon-overhead-bench with monitoring off (--mca pml,osc,coll ^monitoring) and one with it on\n"
              "(pml_monitoring_enable, dumping to files), plus monitoring loaded but stopped through MPI_T, in\n"
              "random order. Every launch's raw samples are saved as it completes; a paired t-test per\n"
              "operation and size ends the run (docs/overhead.md). A failed launch stops the sweep (its log in\n"
              "RESULTS.h5.logs/), unless --keep-going; either way the exit code is then 9."};
  return run_command(cmd, [&] {
    Sweep s;
    std::string np_list, arms, transports;
    po::options_description options("Options");
    options.add_options()("ops", po::value(&s.ops)->default_value("send,bcast,alltoall,put,get"), "operations")(
        "sizes",
        po::value(&s.sizes)->default_value("paper")->notifier([](const std::string& t) { check_sizes(t, "sizes"); }),
        ("message sizes in bytes, or " + named_sizes_help()).c_str())("np", po::value(&np_list)->default_value("2"),
                                                                      "process counts")(
        "pairs", po::value(&s.pairs)->default_value(10)->notifier(in_range<std::uint32_t>("pairs", 1)),
        "launch pairs per process count")("arms", po::value(&arms)->default_value("on,mpit_off"),
                                          "arms compared with off: on, mpit_off")(
        "transport", po::value(&transports)->default_value("shared"),
        "shared, tcp (btl tcp,self over loopback), or both")(
        "monitoring-mode",
        po::value(&s.h.monitoring_mode)->default_value(1)->notifier(in_range<std::uint32_t>("monitoring-mode", 1, 2)),
        "pml_monitoring_enable of the on arms")(
        "iterations", po::value(&s.iterations)->default_value(1000)->notifier(in_range<std::uint32_t>("iterations", 1)),
        "timed iterations per benchmark")("warmup", po::value(&s.warmup)->default_value(100),
                                          "untimed iterations first")(
        "seed", po::value(&s.h.seed)->default_value(1), "seed of the arm order and of the benchmark order")(
        "launcher", po::value(&s.h.launcher)->default_value("mpirun"), "MPI launcher, e.g. srun")(
        "mca", po::value(&s.h.mca)->composing(), "KEY=VALUE added to every launch (repeatable)")(
        "bind", po::value(&s.h.bind)->default_value("auto"),
        "auto (core when the processes fit the cores, else none), core, none, launcher")(
        "timeout", po::value(&s.h.timeout)->default_value(600)->notifier(in_range("timeout", 1)),
        "seconds before a launch is killed")(
        "design", po::value(&s.design)->default_value("pairs"),
        "pairs (launch pairs), interleaved (the cost switched per block inside one launch, ABBA), or both")(
        "block", po::value(&s.block)->default_value(50)->notifier(in_range<std::uint32_t>("block", 1)),
        "iterations per block of the interleaved design")(
        "clock", po::value(&s.clock)->default_value("auto"),
        "per-iteration clock: auto (the invariant TSC when usable, else CLOCK_MONOTONIC_RAW), tsc, monotonic")(
        "calibrate", po::value(&s.calibrate_ns)->default_value(0),
        "instead of monitoring, inject about this many ns per call with the PMPI delay library (as loops)")(
        "calibrate-loops", po::value(&s.calibrate_loops)->default_value(0),
        "instead of monitoring, inject this many iterations of a 2-instruction loop per call")(
        "output,o", po::value(&s.output)->default_value("overhead.h5"), "results file")(
        "resume", "continue the sweep recorded in the results file")(
        "keep-going", "run every launch even when some fail (the exit code still says they failed: 9)")(
        "program",
        po::value(&s.program)->default_value(own_file("mpimon-overhead-bench"), "mpimon's mpimon-overhead-bench"),
        "the benchmark program")(
        "delay-library",
        po::value(&s.delay_library)
            ->default_value(own_file("libmpimon-pmpi-delay.so"), "mpimon's libmpimon-pmpi-delay.so"),
        "the PMPI delay library for --calibrate");
    po::variables_map vm;
    if (!parse_options(cmd, args, options, {}, vm)) return kExitOk;
    s.resume = vm.count("resume") > 0;
    s.keep_going = vm.count("keep-going") > 0;
    s.nps = split_positive_list(np_list, "np");
    // The names mpimon-overhead-bench accepts, from the table it reads too: a typo is a usage
    // error, not a sweep of failing launches.
    for (const auto& op : split_list(s.ops, "ops")) {
      if (!parse_bench_op(op)) throw po::error("--ops: unknown operation '" + op + "' (" + bench_op_names() + ")");
    }
    if (s.clock != "auto" && s.clock != "tsc" && s.clock != "monotonic")
      throw po::error("--clock takes auto, tsc or monotonic, not '" + s.clock + "'");
    s.transports = split_list(transports, "transport");
    for (const auto& t : s.transports) {
      if (t != "shared" && t != "tcp") throw po::error("--transport takes shared and tcp, not '" + t + "'");
    }
    if (s.calibrate_ns > 0 && s.calibrate_loops > 0) throw po::error("--calibrate and --calibrate-loops: give one");
    if (s.design != "pairs" && s.design != "interleaved" && s.design != "both")
      throw po::error("--design takes pairs, interleaved or both, not '" + s.design + "'");
    if (s.design != "pairs") {
      if (const std::string e = abba_plan_error(s.iterations, s.block); !e.empty()) throw po::error("--block: " + e);
    }
    s.arms = {};
    if (s.design != "interleaved") {
      s.arms.emplace_back(kArmOff);
      if (!s.calibration_arm().empty()) {
        s.arms.push_back(s.calibration_arm());
      } else {
        for (const auto& a : split_list(arms, "arms")) {
          if (a != kArmOn && a != kArmMpitOff) {
            throw po::error("--arms takes " + std::string(kArmOn) + " and " + std::string(kArmMpitOff) + ", not '" + a +
                            "'");
          }
          s.arms.push_back(a);
        }
      }
    }
    if (s.design != "pairs") s.arms.push_back(s.interleaved_arm());
    check_harness_settings(s.h);
    if (!fs::exists(s.program)) raise_error(Error::Kind::input, s.program, "benchmark program not found (--program)");

    const FailedLaunches failed = run_sweep(name, s);
    if (failed.stopped) failed.raise_if_any();
    OverheadResults results(s.output);
    auto launches = results.launches();
    auto cells = analyze_overhead(launches);
    results.write_analysis(cells);
    write_analysis_table(cells, std::cout);
    write_interleaving(launches, s.design, std::cout);
    if (!s.calibration_arm().empty()) {
      print_calibration(cells, injected_cost(launches),
                        s.calibrate_loops > 0 ? std::to_string(s.calibrate_loops) + " loops"
                                              : std::to_string(s.calibrate_ns) + " ns requested");
    }
    std::printf("results: %s\n", s.output.c_str());
    failed.raise_if_any();
    return kExitOk;
  });
}

}  // namespace mpimon::cli
