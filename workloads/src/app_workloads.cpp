#include <cmath>
#include <cstdio>
#include <stdexcept>

#include "app_workloads_internal.hpp"

namespace mpimon::mpi {

std::vector<std::string> workload_names() { return {"stencil", "cg", "lu", "bt"}; }
std::vector<std::string> class_names() { return {"small", "medium", "large"}; }

WorkloadReport run_workload(MPI_Comm comm, const WorkloadOptions& options, Ledger& ledger) {
  bool known_class = false;
  for (const auto& c : class_names()) known_class |= c == options.problem_class;
  if (!known_class)
    throw std::invalid_argument("--class must be small, medium or large, not '" + options.problem_class + "'");
  if (options.iterations < 0) throw std::invalid_argument("--iterations must be positive");
  if (options.vars < 0) throw std::invalid_argument("--vars must be positive");
  if (!(options.compute >= 0) || std::isinf(options.compute))
    throw std::invalid_argument("--compute must be a non-negative number");
  for (int n : options.grid) {
    if (n < 0) throw std::invalid_argument("--grid sizes must be positive");
  }
  Traffic traffic(comm, ledger, options.inject_error);
  WorkloadReport r;
  if (options.workload == "stencil") {
    r = run_stencil(traffic, options);
  } else if (options.workload == "cg") {
    r = run_cg(traffic, options);
  } else if (options.workload == "lu") {
    r = run_lu(traffic, options);
  } else if (options.workload == "bt") {
    r = run_bt(traffic, options);
  } else {
    throw std::invalid_argument("--workload must be stencil, cg, lu or bt, not '" + options.workload + "'");
  }
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

std::string json_number(double value) {
  if (!std::isfinite(value)) return "null";
  char buf[40];
  std::snprintf(buf, sizeof buf, "%.9g", value);
  return buf;
}

std::string report_json(const WorkloadReport& r) {
  const double share = r.seconds > 0 ? r.comm_seconds / r.seconds : 0;
  std::string s = "{\"workload\":\"" + r.workload + "\",\"class\":\"" + r.problem_class +
                  "\",\"np\":" + std::to_string(r.np) + ",\"iterations\":" + std::to_string(r.iterations) +
                  ",\"seconds\":" + json_number(r.seconds) + ",\"comm_seconds\":" + json_number(r.comm_seconds) +
                  ",\"comm_seconds_reduction\":\"mean\",\"comm_seconds_max\":" + json_number(r.comm_seconds_max) +
                  ",\"comm_share\":" + json_number(std::min(1.0, share)) +
                  ",\"messages_sent\":" + std::to_string(r.messages) + ",\"bytes_sent\":" + std::to_string(r.bytes) +
                  ",\"collective_calls\":" + std::to_string(r.collectives) + ",\"check\":\"" + r.check +
                  "\",\"check_value\":" + json_number(r.check_value) + ",\"tolerance\":" + json_number(r.tolerance) +
                  ",\"passed\":" + (r.passed ? "true" : "false");
  for (const auto& [key, value] : r.details) s += ",\"" + key + "\":" + value;
  return s + "}";
}

}  // namespace mpimon::mpi
