#pragma once
// Shared between the workload files (app_*.cpp); not part of the library's interface.

#include <cmath>
#include <string>

#include "app_traffic.hpp"
#include "mpimon/workloads/app_workloads.hpp"

namespace mpimon::workloads {

// Each kernel (app_WORKLOAD.cpp) defines `WorkloadReport run_WORKLOAD(Traffic&, const
// WorkloadOptions&)`, declared beside the runner table in app_workloads.cpp: it runs its timed loop
// and its check; the report is complete on rank 0 (timing and traffic fields filled by
// Traffic::summarise).

/// A workload's size: the class's defaults, overridden by the options that are set.
struct ProblemSize {
  mpimon::Vec3 grid;
  int vars, iterations;
};
ProblemSize resolve_size(const ProblemSize& class_size, const WorkloadOptions& options);

/// Runs iterate(t) for t = 0 .. iterations - 1 as the timed loop; the report holds its timing and
/// traffic (on rank 0).
template <typename Iterate>
WorkloadReport run_timed_loop(Traffic& traffic, int iterations, Iterate&& iterate) {
  traffic.start_loop();
  for (int t = 0; t < iterations; ++t) iterate(t);
  traffic.stop_loop();
  WorkloadReport r;
  r.iterations = iterations;
  traffic.summarise(r);
  return r;
}

/// The check of the workloads that know their exact result at every point: the largest
/// deviation over all ranks, gathered at rank 0, must be within `tolerance`.
void check_max_error(Traffic& traffic, WorkloadReport& r, const std::string& name, double local_error,
                     double tolerance);

/// `worst` becomes `value` if that is larger or NaN, so that a NaN is never hidden by a max.
inline void keep_worst(double& worst, double value) {
  if (!std::isnan(worst) && !(value <= worst)) worst = value;
}

}  // namespace mpimon::workloads
