// mpimon-merge: the same as `mpimon merge`, under the name users type after a monitored run.
// Started by mpirun or srun, its processes share the work (merge_parallel/, docs/merge-at-scale.md);
// otherwise it never initialises MPI.

#include <string>
#include <vector>

#include "commands.hpp"
#ifdef MPIMON_PARALLEL_MERGE
#include "mpimon/matrices/merge_parallel.hpp"
#endif

int main(int argc, char** argv) {
  const std::vector<std::string> args(argv + 1, argv + argc);
#ifdef MPIMON_PARALLEL_MERGE
  if (mpimon::launched_by_mpi()) {
    return mpimon::run_parallel_merge(argc, argv, [&](const mpimon::ParallelMerge& p) {
      mpimon::cli::MergeProcesses processes{p.rank, p.size,
                                            [&p](const auto& list, const auto& out, const auto& opt, const auto& prog) {
                                              return p.merge(list, out, opt, prog);
                                            }};
      return mpimon::cli::parallel_merge_command("mpimon-merge", args, processes);
    });
  }
#endif
  return mpimon::cli::merge_command("mpimon-merge", args);
}
