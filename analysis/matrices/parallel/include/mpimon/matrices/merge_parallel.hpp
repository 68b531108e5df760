#pragma once
// mpimon-merge under mpirun/srun: the input files split over the processes (docs/merge-at-scale.md).
//
// The only part of mpimon-merge that knows MPI (this header does not include mpi.h). Without a
// launcher mpimon-merge never calls MPI_Init and works as the serial merge.

#include <functional>
#include <string>
#include <vector>

#include "mpimon/matrices/merge.hpp"

namespace mpimon {

/// True when the process was started by an MPI launcher (Open MPI's OMPI_COMM_WORLD_SIZE, or the
/// PMI_SIZE / PMIX_RANK of Slurm and other PMI launchers): read before MPI_Init.
bool launched_by_mpi();

/// What `body` needs to merge in parallel: this process's rank, the number of processes, and the
/// collective merge.
struct ParallelMerge {
  unsigned rank = 0;
  unsigned size = 1;
  /// Collective. Rank 0 calls list_files() and shares the list; each process reads and parses a
  /// contiguous share of the files (in plan order), and all write `output` together with parallel
  /// HDF5, each its own rows: the serial merge's file. Rank 0 returns the summaries (the others an
  /// empty list), or every process throws the same Error (the first bad file in file order). A
  /// process that fails while the file is written collectively prints its error and ends every
  /// process with MPI_Abort (exit code 1), having removed the temporary file.
  std::vector<DumpSummary> merge(const std::function<std::vector<std::string>()>& list_files, const std::string& output,
                                 const MergeOptions& options, const MergeProgress& progress) const;
};

/// MPI_Init, body(processes), MPI_Finalize; returns body's exit code. Processes other than rank 0
/// print nothing (their stdout and stderr go to /dev/null): rank 0 reports for all, except a
/// process that aborts the merge (its message goes to the user's stderr).
int run_parallel_merge(int& argc, char**& argv, const std::function<int(const ParallelMerge&)>& body);

}  // namespace mpimon
