#pragma once
// The built-in application workloads by name: the one table that the workload program's dispatch,
// the sweeps' option checks and the help texts read (docs/workloads.md). Adding a workload is a
// row here and its kernel in workloads/src/app_workloads.cpp, whose runner table must match this
// one row for row (checked at compile time there).

#include <array>
#include <span>
#include <string>
#include <string_view>

namespace mpimon {

struct WorkloadKind {
  std::string_view name;
  std::string_view signature;  ///< the application whose communication it reproduces
};

inline constexpr std::array kWorkloadKinds{
    WorkloadKind{"stencil", "MiniGhost's halo exchange"},
    WorkloadKind{"cg", "NAS CG's dot products and neighbour exchanges"},
    WorkloadKind{"lu", "NAS LU's pipelined wavefront"},
    WorkloadKind{"bt", "NAS BT's multi-partition"},
};

/// Problem classes every workload takes.
inline constexpr std::array<std::string_view, 3> kWorkloadClasses{"small", "medium", "large"};

bool is_workload(std::string_view name);
bool is_workload_class(std::string_view name);

/// "stencil, cg, lu and bt": the names as a sentence, for help and errors.
std::string workload_list();

/// "small, medium and large": the classes as a sentence.
std::string workload_class_list();

/// "stencil,cg,lu,bt": every workload, as a --workload value.
std::string all_workloads_option();

}  // namespace mpimon
