#pragma once
// The MPI side of libmpimon-reorder: one collective flow (run_reorder) that every entry point uses.
// Each process contributes its place and its part of the graph (or why it cannot) in one gather;
// rank 0 of the communicator builds the machine and the graph, decides, and broadcasts one outcome
// that every process returns, so that no error leaves a process waiting.

#include <mpi.h>

#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "mpimon/reorder.h"
#include "reorder_model.hpp"

namespace mpimon::reorder {

/// This process's place, read once (hostname, hwloc binding).
const ProcessPlace& local_place();

/// Why a process cannot contribute (sent to rank 0 with its place).
enum class Problem : std::int32_t {
  none,
  null_argument,     ///< detail: which argument (text chosen by the entry point: Contribution::what)
  negative_count,    ///< detail_a: the count
  bad_edge,          ///< detail_a: position, detail_b: the endpoint out of range
  negative_weight,   ///< detail_a: position, detail_b: the weight
  unknown_source,    ///< the source string is none of the known ones
  mpit_init,         ///< detail_a: MPI_T_init_thread's error
  no_pml_variables,  ///< detail_a: MPI_T_pvar_get_index's error for pml_monitoring_messages_size
  mpit_failed,       ///< detail_a: the MPI_T error, detail_b: which call (1 alloc/start, 2 read)
  source_failed,     ///< rank 0 only: `message` says why (a file)
  pass_through,      ///< a constructor's arguments MPI itself must judge (the call is passed on unchanged)
};

/// What one process brings: its directed edges (ranks of the communicator), or a problem.
struct Contribution {
  std::vector<DirectedEdge> edges;
  Problem problem = Problem::none;
  std::int64_t detail_a = 0, detail_b = 0;
  std::string message;  ///< rank 0's own problems only (e.g. a file that cannot be read)
};

struct Request {
  const char* call;            ///< "mpimon_reorder", "MPI_Cart_create", ... (reports)
  std::string source;          ///< as given ("monitoring", "file:x.h5", "graph", "declared graph")
  std::uint32_t vertices = 0;  ///< at most the communicator's size
  Contribution mine;
  /// Rank 0's part of the graph that no other process has (the Cartesian grid, a file), or none.
  std::function<Contribution()> root_part;
  /// A constructor: with MPIMON_REORDER_PLAN it keeps the order and writes the placement instead.
  bool may_plan = false;
  bool whole_world = false;  ///< the communicator's processes are MPI_COMM_WORLD's, in order (rank 0 only)
};

struct Outcome {
  int status = MPIMON_REORDER_SUCCESS;
  bool pass_through = false;  ///< a constructor: call the MPI library with the arguments unchanged
  std::string message;        ///< the error, the same on every process
  int new_rank = -1;          ///< this process's rank in the result (-1: no vertex; reordered only)
  mpimon_reorder_stats stats{};
  double started = 0;  ///< MPI_Wtime at the call's start
};

/// The collective flow. Never throws; every process of `comm` returns the same status and decision.
Outcome run_reorder(MPI_Comm comm, Request request);

/// After the communicator is made: times, the last statistics and error of this process, and on rank
/// 0 the MPIMON_REORDER_VERBOSE line and the MPIMON_REORDER_STATS record.
void finish_reorder(MPI_Comm comm, const Request& request, Outcome& outcome);

/// MPIMON_REORDER=off: the library steps aside.
bool reorder_disabled();

/// MPIMON_REORDER_PLAN=FILE: the placement for the next launch, written by rank 0 instead of a
/// renumbering. Rank r of the next launch takes the place of the process the mapping gives vertex r
/// (the ranks without a vertex the remaining processes' places, in order). FILE is an Open MPI
/// rankfile ("rank R=HOST slot=S": by core, the process's package:core; by node, the R's turn among
/// its host's ranks), FILE.hosts the host of each rank, one a line (Slurm's SLURM_HOSTFILE with
/// --distribution=arbitrary, Open MPI's seq mapper). Each is written whole or not at all.
void write_plan(const std::string& path, const std::vector<std::uint32_t>& process_of,
                const std::vector<ProcessPlace>& places, bool by_core);

/// "monitoring": this process's traffic to comm's processes (Open MPI's PML counters through MPI_T)
/// since the last call, or a problem. After the call, mark_monitoring() makes "now" the next start.
Contribution monitoring_contribution(MPI_Comm comm);
void mark_monitoring();
/// "file:PATH.h5[#DUMP]": rank 0 reads the recording (external + internal bytes).
Contribution file_contribution(const std::string& spec, std::uint32_t processes);
/// The message rank 0 gives for a process's problem.
std::string problem_message(Problem p, int rank, std::int64_t a, std::int64_t b, const Request& request);

/// While the library itself calls MPI on this thread (a reordering, the guard's own queries): the
/// guard's MPI_/PMPI_ wrappers pass those calls straight on.
struct LibraryScope {
  LibraryScope();
  ~LibraryScope();
  LibraryScope(const LibraryScope&) = delete;
  LibraryScope& operator=(const LibraryScope&) = delete;
};
bool in_library();

/// The guard (guard.cpp): a communicator a constructor renumbered (`moved` of its `processes` have
/// another rank than in `parent`) is watched until the application communicates on it; freed
/// unused after ranks were read from it, a point-to-point call on the parent's processes naming one
/// of those ranks where it is another process stops the job.
void watch_renumbered(MPI_Comm renumbered, MPI_Comm parent, const char* call, int moved, int processes);
/// A call of the application that uses `comm`: the watch of `comm` ends.
void note_use(MPI_Comm comm);

/// Process-wide state read by the C API.
void set_last(const mpimon_reorder_stats& stats, const std::string& error);
const mpimon_reorder_stats& last_stats();
const std::string& last_error();

}  // namespace mpimon::reorder
