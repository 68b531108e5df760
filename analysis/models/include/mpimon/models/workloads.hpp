#pragma once
// The built-in application workloads: the one table, with each workload's properties, that the
// workload program's dispatch and help, the sweeps' option checks, their help and errors, and the
// validation cases read (docs/workloads.md). Adding a workload is a row here and its kernel in
// workloads/src/ (docs/architecture.md counts the files), whose runner table in app_workloads.cpp
// must match this one row for row (checked at compile time there).

#include <array>
#include <span>
#include <string>
#include <string_view>

namespace mpimon {

struct WorkloadKind {
  std::string_view name;
  std::string_view summary;    ///< what it does, for --help and its validation case
  std::string_view signature;  ///< the application whose communication it reproduces
  /// Runs only on a square number of processes (a q x q process grid): sweeps leave other counts out.
  bool square_processes = false;
  /// Takes mpimon bench app's shape options (--grid, --vars, --points, --compute, --compute-sweep).
  bool shape_options = false;
  /// Calls collectives in its timed loop: validated on E and C (mode 2) rather than on E, the
  /// histograms and an empty I (modes 1 and 2).
  bool collectives = false;
  /// Process counts of its validation case (`mpimon validate`; 0: none).
  std::array<int, 2> validation_nps{4, 0};
};

inline constexpr std::array kWorkloadKinds{
    WorkloadKind{.name = "stencil",
                 .summary = "MiniGhost-like halo exchange on a periodic 3-D grid, 7 or 27 points",
                 .signature = "MiniGhost's halo exchange",
                 .shape_options = true,
                 .validation_nps = {2, 4}},
    WorkloadKind{.name = "cg",
                 .summary = "conjugate gradient: face exchanges and two 8-byte MPI_Allreduce per iteration",
                 .signature = "NAS CG's dot products and neighbour exchanges",
                 .collectives = true},
    WorkloadKind{.name = "lu",
                 .summary = "pipelined wavefront sweeps over a 2-D process grid",
                 .signature = "NAS LU's pipelined wavefront"},
    WorkloadKind{.name = "bt",
                 .summary = "multi-partition line solves along x, y and z",
                 .signature = "NAS BT's multi-partition",
                 .square_processes = true},
};

/// Problem classes every workload takes.
inline constexpr std::array<std::string_view, 3> kWorkloadClasses{"small", "medium", "large"};

bool is_workload(std::string_view name);
/// The row of `name`, or nullptr.
const WorkloadKind* find_workload(std::string_view name);
bool is_workload_class(std::string_view name);

/// "stencil, cg, lu and bt": the names as a sentence, for help and errors.
std::string workload_list();

/// "small, medium and large": the classes as a sentence.
std::string workload_class_list();

/// "stencil,cg,lu,bt": every workload, as a --workload value.
std::string all_workloads_option();

/// The names of the workloads that have `property` as a sentence ("bt" for square_processes).
std::string workloads_with(bool WorkloadKind::*property);

/// Each workload as --help describes it: "stencil (MiniGhost-like ...), ..., bt (...; np must be a
/// square)".
std::string workload_help();

}  // namespace mpimon
