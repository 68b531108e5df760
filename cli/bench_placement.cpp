// `mpimon bench placement`: pairs of launches of an application under two rankfiles, A and B, in
// random order within each pair, monitoring off in both; every launch saved as it completes; one
// table at the end: which placement is faster, with its 95 % CI (docs/placement.md). The
// launch-pair harness is `bench app`'s with the rankfiles as its arms.

#include <cstdio>
#include <iostream>

#include "app_options.hpp"
#include "cli_support.hpp"
#include "commands.hpp"
#include "mpimon/harness/app_sweep.hpp"
#include "mpimon/models/workloads.hpp"
#include "mpimon/results/apps.hpp"

namespace mpimon::cli {

using namespace mpimon::harness;

int bench_placement_command(const std::string& name, const std::vector<std::string>& all_args) {
  Command cmd{name,
              "(--rankfile A.rf --rankfile B.rf | --arm A --arm B) [--np N] [--pairs R] [-o RESULTS.h5]\n"
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
                  "with every launch to RESULTS.h5. `mpimon place --rankfile` writes rankfiles (docs/placement.md).\n"
                  "--arm compares placements made inside the run instead (docs/reorder.md): " +
                  placement_kind_names() + "."};
  const auto [args, command] = split_command(all_args);
  return run_command(cmd, [&] {
    AppSweep s;
    AppOptions w;
    std::vector<std::string> rankfiles, kinds;
    std::uint32_t np = 0;
    po::options_description options("Options");
    options.add_options()("rankfile", po::value(&rankfiles)->composing(),
                          "an Open MPI rankfile: give two, A then B (e.g. written by mpimon place --rankfile)")(
        "arm", po::value(&kinds)->composing(),
        ("a placement, A then B: " + placement_kind_names() + " (--rankfile FILE is rankfile:FILE)").c_str())(
        "np", po::value(&np)->default_value(2)->notifier(in_range<std::uint32_t>("np", 1)),
        "processes of every launch (each rankfile places ranks 0..N-1)");
    add_app_options(options, w, s, "placement.h5");
    po::variables_map vm;
    if (!parse_options(cmd, args, options, {}, vm)) return kExitOk;
    if (!kinds.empty() && !rankfiles.empty()) throw po::error("--rankfile and --arm exclude each other");
    if (kinds.empty() && rankfiles.size() != 2) {
      throw po::error("--rankfile: give exactly two rankfiles, A then B (" + std::to_string(rankfiles.size()) +
                      " given)");
    }
    if (!kinds.empty() && kinds.size() != 2) {
      throw po::error("--arm: give exactly two placements, A then B (" + std::to_string(kinds.size()) + " given)");
    }
    s.nps = {np};
    s.h.bind = "launcher";  // a rankfile binds every rank; the other arms keep the launcher's binding
    apply_app_options(w, vm, command, s, mpimon::all_workloads_option());
    s.arms = kinds.empty() ? rankfile_arms(rankfiles[0], rankfiles[1], np, s.h.launcher)
                           : placement_arms(kinds, np, s.h.launcher);
    check_launches_planned(s);

    const auto [launches, failed, arms, rows, configuration] = run_app_sweep(s, name);
    write_app_table(rows, AppTable::placements, arms, 0.05, std::cout);
    for (const auto& a : s.arms) {  // a rankfile's path, else the placement's summary
      const bool rankfile = a.launcher_options.size() > 1 && a.launcher_options[0] == "--rankfile";
      std::printf("%s: %s\n", a.name.c_str(), rankfile ? a.launcher_options[1].c_str() : a.description.c_str());
    }
    std::printf("results: %s\n", s.output.c_str());
    failed.raise_if_any();
    return kExitOk;
  });
}

}  // namespace mpimon::cli
