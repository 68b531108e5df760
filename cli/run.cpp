// `mpimon run`: the user's MPI command line, run as it is with libmpimon-reorder.so given to its
// processes (--reorder): the MPI topology constructors then honour reorder=1 (docs/reorder.md).
#include <cstdio>

#include "app_options.hpp"
#include "cli_support.hpp"
#include "commands.hpp"
#include "mpimon/harness/run.hpp"

namespace mpimon::cli {

int run_command_line(const std::string& name, const std::vector<std::string>& all_args) {
  Command cmd{name,
              "--reorder [--verbose] [--stats FILE] [--plan FILE] [--topology NODE.xml] [--time-limit SECONDS] -- "
              "LAUNCHER ARGS...",
              "Runs an MPI command line (mpirun, mpiexec, srun, ...) as it is, with libmpimon-reorder.so preloaded\n"
              "into its processes: MPI_Cart_create, MPI_Graph_create, MPI_Dist_graph_create and\n"
              "MPI_Dist_graph_create_adjacent with reorder=1 then renumber the processes so that neighbours in the\n"
              "declared graph sit on the same node or core (mpimon's placement on each process's hostname and\n"
              "hwloc binding); reorder=0 is untouched. No rankfile, no relaunch. Mpirun and mpiexec get -x VAR=VALUE,\n"
              "srun --export=ALL,VAR=VALUE, any other command the variables in its environment. The exit code is\n"
              "the command's. Without --reorder the command runs unchanged. With --plan the order is kept and the\n"
              "placement written to FILE (one host per rank) for the next launch, for codes that cannot take a\n"
              "renumbering (mpirun --mca rmaps seq --hostfile FILE, or SLURM_HOSTFILE=FILE srun\n"
              "--distribution=arbitrary). docs/reorder.md."};
  const auto [args, command] = split_command(all_args);
  return run_command(cmd, [&] {
    harness::RunSettings s;
    s.command = command;
    po::options_description options("Options");
    options.add_options()("reorder", po::bool_switch(&s.reorder),
                          "preload libmpimon-reorder.so: the topology constructors honour reorder=1")(
        "verbose", po::bool_switch(&s.verbose),
        "one line per reordering on rank 0's stderr (MPIMON_REORDER_VERBOSE=1)")(
        "stats", po::value(&s.stats), "rank 0 appends one JSON line per reordering to FILE (MPIMON_REORDER_STATS)")(
        "plan", po::value(&s.plan),
        "keep the order; write the placement of the first renumbering of MPI_COMM_WORLD's processes to FILE, one "
        "host per rank, for the next launch (MPIMON_REORDER_PLAN)")(
        "topology", po::value(&s.topology),
        "a node's hwloc XML (lstopo --of xml) instead of each machine's own (MPIMON_REORDER_TOPOLOGY)")(
        "time-limit", po::value(&s.time_limit)->notifier([](double v) {
          if (!(v > 0)) throw po::error("--time-limit: must be a positive number of seconds, not 0");
        }),
        "seconds the mapping may take (default: vertices / 2000, from 0.2 to 10)")(
        "library", po::value(&s.library), "another libmpimon-reorder.so (default: the one installed with mpimon)");
    po::variables_map vm;
    if (!parse_options(cmd, args, options, {}, vm)) return kExitOk;
    const harness::PreparedRun run = harness::prepare_run(s);
    if (s.verbose) std::fprintf(stderr, "%s: %s\n", name.c_str(), run.text().c_str());
    harness::exec_run(run);
  });
}

}  // namespace mpimon::cli
