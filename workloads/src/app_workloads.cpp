#include <algorithm>
#include <array>
#include <cmath>
#include <stdexcept>

#include "app_workloads_internal.hpp"
#include "mpimon/json.hpp"
#include "mpimon/models/workloads.hpp"

namespace mpimon::workloads {

// The kernels, one per row of mpimon::kWorkloadKinds (app_WORKLOAD.cpp).
WorkloadReport run_stencil(Traffic& traffic, const WorkloadOptions& options);
WorkloadReport run_cg(Traffic& traffic, const WorkloadOptions& options);
WorkloadReport run_lu(Traffic& traffic, const WorkloadOptions& options);
WorkloadReport run_bt(Traffic& traffic, const WorkloadOptions& options);

namespace {

struct Runner {
  std::string_view name;
  WorkloadReport (*run)(Traffic&, const WorkloadOptions&);
};

// One kernel per row of mpimon::kWorkloadKinds, in its order.
constexpr std::array kRunners{Runner{"stencil", run_stencil}, Runner{"cg", run_cg}, Runner{"lu", run_lu},
                              Runner{"bt", run_bt}};

constexpr bool runners_match_kinds() {
  if (kRunners.size() != mpimon::kWorkloadKinds.size()) return false;
  for (std::size_t i = 0; i < kRunners.size(); ++i) {
    if (kRunners[i].name != mpimon::kWorkloadKinds[i].name) return false;
  }
  return true;
}
static_assert(runners_match_kinds(), "every workload of mpimon::kWorkloadKinds needs its kernel here, in order");

}  // namespace

WorkloadReport run_workload(MPI_Comm comm, const WorkloadOptions& options, Ledger& ledger) {
  if (!mpimon::is_workload_class(options.problem_class))
    throw std::invalid_argument("--class must be one of " + mpimon::workload_class_list() + ", not '" +
                                options.problem_class + "'");
  if (options.iterations < 0) throw std::invalid_argument("--iterations must be positive");
  if (options.vars < 0) throw std::invalid_argument("--vars must be positive");
  if (!(options.compute >= 0) || std::isinf(options.compute))
    throw std::invalid_argument("--compute must be a non-negative number");
  for (int n : options.grid) {
    if (n < 0) throw std::invalid_argument("--grid sizes must be positive");
  }
  Traffic traffic(comm, ledger, options.inject_error, options.renumbered);
  const auto runner =
      std::find_if(kRunners.begin(), kRunners.end(), [&](const Runner& k) { return k.name == options.workload; });
  if (runner == kRunners.end())
    throw std::invalid_argument("--workload must be one of " + mpimon::workload_list() + ", not '" + options.workload +
                                "'");
  WorkloadReport r = runner->run(traffic, options);
  r.workload = options.workload;
  r.problem_class = options.problem_class;
  return r;
}

ProblemSize resolve_size(const ProblemSize& class_size, const WorkloadOptions& o) {
  return {o.grid[0] > 0 ? o.grid : class_size.grid, o.vars > 0 ? o.vars : class_size.vars,
          o.iterations > 0 ? o.iterations : class_size.iterations};
}

void check_max_error(Traffic& traffic, WorkloadReport& r, const std::string& name, double local_error,
                     double tolerance) {
  const auto errors = traffic.gather_to_root({local_error});
  r.check = name;
  r.tolerance = tolerance;
  for (double e : errors) keep_worst(r.check_value, e);
  r.passed = traffic.rank() != 0 || r.check_value <= r.tolerance;
}

std::string report_json(const WorkloadReport& r) {
  const double share = r.seconds > 0 ? r.comm_seconds / r.seconds : 0;
  Json report = {{"workload", r.workload},
                 {"class", r.problem_class},
                 {"np", r.np},
                 {"iterations", r.iterations},
                 {"seconds", r.seconds},
                 {"comm_seconds", r.comm_seconds},
                 {"comm_seconds_reduction", "mean"},
                 {"comm_seconds_max", r.comm_seconds_max},
                 {"comm_share", std::min(1.0, share)},
                 {"messages_sent", r.messages},
                 {"bytes_sent", r.bytes},
                 {"collective_calls", r.collectives},
                 {"check", r.check},
                 {"check_value", r.check_value},
                 {"tolerance", r.tolerance},
                 {"passed", r.passed}};
  for (const auto& [key, value] : r.details) std::visit([&](const auto& v) { report[key] = v; }, value);
  return json_line(report);
}

}  // namespace mpimon::workloads
