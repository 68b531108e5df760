#pragma once
// Application workloads with the communication signatures of MiniGhost and NAS CG, LU and BT
// (docs/workloads.md). Each computes something it can check, times its communication, and keeps
// the ledger of everything it sends, so the monitoring can be validated on it.

#include <mpi.h>

#include <array>
#include <cstdint>
#include <string>
#include <utility>
#include <variant>
#include <vector>

#include "mpimon/models/decomposition.hpp"
#include "mpimon/models/ledger.hpp"

namespace mpimon::workloads {

/// What a workload is asked to do; zero / empty fields take the class's value.
struct WorkloadOptions {
  std::string workload;                 ///< a name of mpimon::kWorkloadKinds
  std::string problem_class = "small";  ///< small, medium, large
  int iterations = 0;
  mpimon::Vec3 grid{0, 0, 0};  ///< global grid points
  int vars = 0;                ///< variables per point (stencil, lu, bt)
  int points = 7;              ///< stencil: 7 or 27
  double compute = 0;          ///< extra floating-point operations per point, variable and iteration
  int block = 1;               ///< lu: z planes per pipelined message
  bool inject_error = false;   ///< corrupt one message of rank 0 (the check must then fail)
  std::uint64_t scramble = 0;  ///< stencil: seed of a rank order that does not follow the grid; 0 none
  /// The communicator is MPI_COMM_WORLD's processes renumbered (a topology constructor's with
  /// reorder=1): the ledger then names peers by its ranks, not by the world's.
  bool renumbered = false;
};

/// A further member of a workload's report: a count, a number, a grid of three or a word.
using Detail = std::variant<std::int64_t, std::uint64_t, double, std::array<int, 3>, std::string>;

/// A workload's outcome. Times and counts cover the timed loop only.
struct WorkloadReport {
  std::string workload, problem_class;
  int np = 0, iterations = 0;
  double seconds = 0;             ///< wall time of the timed loop, max over ranks
  double comm_seconds = 0;        ///< time in communication calls, mean over ranks
  double comm_seconds_max = 0;    ///< the same, max over ranks
  std::uint64_t messages = 0;     ///< point-to-point messages sent, all ranks
  std::uint64_t bytes = 0;        ///< their payload bytes
  std::uint64_t collectives = 0;  ///< collective calls, all ranks
  std::string check;              ///< name of the check
  double check_value = 0, tolerance = 0;
  bool passed = false;
  std::string failure;  ///< why the check failed, when check_value alone does not say it
  /// Further members of the JSON report: grid, process grid, options.
  std::vector<std::pair<std::string, Detail>> details;
};

/// Runs a workload on `comm` (every rank); the report is complete on rank 0 only. Throws
/// std::invalid_argument for options that do not fit (e.g. a grid smaller than the process grid).
WorkloadReport run_workload(MPI_Comm comm, const WorkloadOptions& options, Ledger& ledger);

/// The global grid the stencil runs on: its class's, or the options' own (--grid).
mpimon::Vec3 stencil_grid(const WorkloadOptions& options);

/// The workload's report as one JSON object on one line.
std::string report_json(const WorkloadReport& r);

}  // namespace mpimon::workloads
