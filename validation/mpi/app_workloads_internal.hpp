#pragma once
// Shared between the workload files (app_*.cpp); not part of the library's interface.

#include <cmath>
#include <string>

#include "app_traffic.hpp"
#include "app_workloads.hpp"

namespace mpimon::mpi {

// Each runs its timed loop and its check; the report is complete on rank 0 (timing and traffic
// fields filled by Traffic::summarise).
WorkloadReport run_stencil(Traffic& traffic, const WorkloadOptions& options);
WorkloadReport run_cg(Traffic& traffic, const WorkloadOptions& options);
WorkloadReport run_lu(Traffic& traffic, const WorkloadOptions& options);
WorkloadReport run_bt(Traffic& traffic, const WorkloadOptions& options);

/// `worst` becomes `value` if that is larger or NaN, so that a NaN is never hidden by a max.
inline void keep_worst(double& worst, double value) {
  if (!std::isnan(worst) && !(value <= worst)) worst = value;
}

/// A number as JSON (null for NaN and infinities, which JSON cannot hold).
std::string json_number(double value);

}  // namespace mpimon::mpi
