// `mpimon record`: one monitored run of the user's MPI application, its dumps checked, merged and
// summarised (docs/record.md). The launch, the checks and the merge are the harness's
// (harness/record.hpp); this parses the options and tells the user what happened.

#include <algorithm>
#include <cstdio>
#include <filesystem>

#include "cli_support.hpp"
#include "commands.hpp"
#include "mpimon/harness/record.hpp"
#include "show.hpp"

namespace mpimon::cli {

using namespace mpimon::harness;

namespace {

const char* what_is_lost(const std::string& framework) {
  return framework == "osc" ? "one-sided operations will not be recorded (osc_sent and osc_recv empty)"
                            : "collective calls will not be recorded (the coll matrix and the per-communicator "
                              "records empty; the point-to-point messages they make still are)";
}

std::string ranks_word(std::size_t n) { return n == 1 ? "rank" : "ranks"; }

// What was recorded, on stderr; the exit code: the application's when it failed, 1 when it
// succeeded but not every rank's dump is in the output file, else 0.
int report(const std::string& name, const RecordPlan& plan, const RecordOutcome& o) {
  const auto& output = plan.settings.output;
  const int app_exit = o.launch.exit_code;
  const bool failed = app_exit != 0;
  if (failed) std::fprintf(stderr, "%s: the application failed (exit code %d)\n", name.c_str(), app_exit);
  if (o.merged) {
    std::fprintf(stderr, "%s: %zu of %u %s wrote their dumps; merged into %s\n", name.c_str(), o.present_ranks.size(),
                 std::max<std::uint32_t>(o.expected_ranks, static_cast<std::uint32_t>(o.present_ranks.size())),
                 ranks_word(o.expected_ranks).c_str(), output.c_str());
  } else if (!o.merge_error.empty()) {
    std::fprintf(stderr, "%s: error: the dumps could not be merged: %s\n", name.c_str(), o.merge_error.c_str());
  } else {
    std::fprintf(stderr, "%s: %s: no rank wrote its dump (%s); %s not written\n", name.c_str(),
                 failed ? "nothing recorded" : "error", no_dump_explanation(plan, o).c_str(), output.c_str());
  }
  if (!o.missing_ranks.empty() && !o.present_ranks.empty()) {
    std::fprintf(stderr, "%s: %s%s %s wrote no dump (of %u)%s\n", name.c_str(),
                 failed ? "" : "error: ", ranks_word(o.missing_ranks.size()).c_str(),
                 rank_ranges(o.missing_ranks).c_str(), o.expected_ranks,
                 failed ? ": they ended before MPI_Finalize" : "");
  }
  if (o.dumps_kept && !o.present_ranks.empty()) {
    std::fprintf(stderr, "%s: dumps kept in %s\n", name.c_str(), o.dump_directory.c_str());
  }
  if (failed && o.merged) {
    std::fprintf(stderr, "%s: %s holds what the ranks recorded until then\n", name.c_str(), output.c_str());
  }
  if (o.merged) show_matrices(output, "", 10);
  if (failed) return app_exit;
  return o.merged && o.missing_ranks.empty() ? kExitOk : kExitFailure;
}

}  // namespace

int record_command(const std::string& name, const std::vector<std::string>& all_args) {
  Command cmd{name,
              "[-o OUT.h5] [--np N] [--launcher CMD] [--mode 1|2] [--mca KEY=VALUE]... [--keep-dumps DIR]\n"
              "       -- COMMAND ARGS...",
              "Runs an MPI application once under the launcher with Open MPI's monitoring on, checks that every\n"
              "rank wrote its dump, merges the dumps into OUT.h5 (docs/matrices-format.md) and prints its summary\n"
              "(as mpimon show). The MCA settings are chosen for you; the dumps go to a private directory next to\n"
              "OUT.h5, removed after the merge unless --keep-dumps. Settings that would make Open MPI record\n"
              "nothing without a word (a pml list without 'monitoring' in --mca, OMPI_MCA_pml or the user's\n"
              "mca-params.conf; a directory the ranks cannot write) stop it before the launch. Exit code: the\n"
              "application's when it fails (whatever was recorded is still merged), 1 when a rank wrote no dump,\n"
              "else 0 (docs/record.md)."};
  auto dashes = std::find(all_args.begin(), all_args.end(), "--");
  const std::vector<std::string> args(all_args.begin(), dashes);
  return run_command(cmd, [&] {
    RecordSettings s;
    s.command.assign(dashes == all_args.end() ? dashes : dashes + 1, all_args.end());
    po::options_description options("Options");
    options.add_options()("output,o", po::value(&s.output),
                          "merged HDF5 file (default: the application's file name with .h5, here)")(
        "np", po::value(&s.np)->notifier(in_range<std::uint32_t>("np", 1)),
        "processes (default: as many as the launcher gives)")(
        "launcher", po::value(&s.launcher)->default_value("mpirun"), "MPI launcher, e.g. \"srun --mpi=pmix\"")(
        "mode", po::value(&s.mode)->default_value(2)->notifier(in_range<std::uint32_t>("mode", 1, 2)),
        "pml_monitoring_enable: 1 every message as external, 2 the collectives' messages told apart as internal")(
        "mca", po::value(&s.mca)->composing(), "KEY=VALUE for the launch, after the monitoring's (repeatable)")(
        "keep-dumps", po::value(&s.keep_dumps), "write the per-rank NAME.RANK.prof dumps here and keep them");
    po::variables_map vm;
    if (!parse_options(cmd, args, options, {}, vm)) return kExitOk;
    if (s.command.empty()) throw po::error("no application: give it after --, e.g. -- ./app ARGS");
    if (s.output.empty()) s.output = std::filesystem::path(s.command[0]).filename().string() + ".h5";

    const RecordPlan plan = prepare_record(s);
    for (const auto& d : plan.partial) {
      std::fprintf(stderr, "%s: warning: %s leaves the %s monitoring out: %s\n", name.c_str(), d.source.c_str(),
                   d.framework.c_str(), what_is_lost(d.framework));
    }
    std::fprintf(stderr, "%s: %s\n", name.c_str(), plan.launch.text().c_str());
    std::fflush(stderr);
    return report(name, plan, run_record(plan));
  });
}

}  // namespace mpimon::cli
