// `mpimon bench placement`: pairs of launches of an application under two rankfiles, A and B, in
// random order within each pair, monitoring off in both; every launch saved as it completes; one
// table at the end: which placement is faster, with its 95 % CI (docs/placement.md). The
// launch-pair harness is `bench app`'s with the rankfiles as its arms.

#include <cstdio>

#include "app_options.hpp"
#include "app_report.hpp"
#include "cli_support.hpp"
#include "commands.hpp"
#include "mpimon/harness/app_sweep.hpp"
#include "mpimon/models/workloads.hpp"
#include "mpimon/results/apps.hpp"

namespace mpimon::cli {

using namespace mpimon::harness;

int bench_placement_command(const std::string& name, const std::vector<std::string>& all_args) {
  Command cmd{name,
              "--rankfile A.rf --rankfile B.rf [--np N] [--pairs R] [-o RESULTS.h5]\n"
              "       [--workload NAME[,NAME...] [workload options]] [--launcher CMD] [--mca KEY=VALUE]...\n"
              "       [--resume] [--keep-going] [--time-regex REGEX] [-- COMMAND ARGS...]",
              "Measures whether one placement of the processes beats another: for each of R pairs, one launch\n"
              "with the processes placed by rankfile A and one by rankfile B (mpirun --rankfile FILE), in random\n"
              "order, monitoring off in both. The built-in workloads (default: " +
                  mpimon::workload_list() +
                  " of\n"
                  "mpimon-workload) are timed by their own report; any other MPI command (after --) by the wall time\n"
                  "of its launch. Each launch records the bindings mpirun reports (--report-bindings). Prints one\n"
                  "table (mean times, B - A with its 95 % CI, t-test and Wilcoxon p, the faster arm) and writes it\n"
                  "with every launch to RESULTS.h5. `mpimon place --rankfile` writes rankfiles (docs/placement.md)."};
  const auto [args, command] = split_command(all_args);
  return run_command(cmd, [&] {
    AppSweep s;
    AppOptions w;
    std::vector<std::string> rankfiles;
    std::uint32_t np = 0;
    po::options_description options("Options");
    options.add_options()("rankfile", po::value(&rankfiles)->composing(),
                          "an Open MPI rankfile: give two, A then B (e.g. written by mpimon place --rankfile)")(
        "np", po::value(&np)->default_value(2)->notifier(in_range<std::uint32_t>("np", 1)),
        "processes of every launch (each rankfile places ranks 0..N-1)");
    add_app_options(options, w, s, "placement.h5");
    po::variables_map vm;
    if (!parse_options(cmd, args, options, {}, vm)) return kExitOk;
    if (rankfiles.size() != 2) {
      throw po::error("--rankfile: give exactly two rankfiles, A then B (" + std::to_string(rankfiles.size()) +
                      " given)");
    }
    s.nps = {np};
    s.h.bind = "launcher";  // the rankfile binds every rank
    apply_app_options(w, vm, command, s, mpimon::all_workloads_option());
    s.arms = rankfile_arms(rankfiles[0], rankfiles[1], np, s.h.launcher);
    check_launches_planned(s);

    const auto [launches, failed] = run_app_sweep(s, name);
    AppResults results(s.output);
    const ArmPair arms{s.arms[0].name, s.arms[1].name};
    auto rows = analyze_apps(launches, 0.95, arms);
    order_rows(rows, results.configuration().at("apps"));
    results.write_analysis(rows, app_pairs(launches, arms), arms);
    print_placement_table(rows, arms);
    for (const auto& a : s.arms) std::printf("%s: %s\n", a.name.c_str(), a.launcher_options.at(1).c_str());
    std::printf("results: %s\n", s.output.c_str());
    failed.raise_if_any();
    return kExitOk;
  });
}

}  // namespace mpimon::cli
