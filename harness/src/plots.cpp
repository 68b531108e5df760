#include "mpimon/harness/plots.hpp"

#include <unistd.h>

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <fstream>
#include <map>
#include <sstream>

#include "mpimon/base/error.hpp"
#include "mpimon/harness/launch.hpp"
#include "mpimon/harness/locations.hpp"
#include "mpimon/results/apps.hpp"
#include "mpimon/results/arms.hpp"
#include "mpimon/results/simulated.hpp"

namespace mpimon::harness {

std::string default_python() { return access("/usr/bin/python3", X_OK) == 0 ? "/usr/bin/python3" : "python3"; }

std::string plot_script(const std::string& name, const char* env_variable) {
  if (const char* env = env_variable ? std::getenv(env_variable) : nullptr; env && *env) return env;
  return data_file("scripts/" + name);
}

std::string run_plot_script(const std::string& python, const std::string& script, const std::vector<std::string>& args,
                            std::chrono::seconds timeout) {
  if (access(script.c_str(), R_OK) != 0) raise_error(Error::Kind::input, script, "plot script not found");
  std::vector<std::string> command = {python, script};
  command.insert(command.end(), args.begin(), args.end());
  const LaunchResult r = run_process(command, {}, timeout);
  if (r.exit_code != 0) {
    raise_error(Error::Kind::system, script,
                "failed (exit code " + std::to_string(r.exit_code) +
                    "; it needs Debian's python3-matplotlib and python3-h5py, see ci/install-deps.sh)" +
                    (r.output.empty() ? "" : ": " + r.output));
  }
  return r.output;
}

TemporaryFile script_input(const std::string& data, const std::string& tag) {
  TemporaryFile file(tag);
  std::ofstream out(file.path(), std::ios::binary | std::ios::trunc);
  if (!(out << data).flush()) raise_error(Error::Kind::system, file.path(), "write error");
  return file;
}

std::string mpi_call_name(CollectiveOp op) {
  std::string name(op_name(op));
  name[0] = static_cast<char>(name[0] - 'a' + 'A');
  return "MPI_" + name;
}

std::string collective_heatmap_table(const CollectiveSpec& spec, Metric metric) {
  const std::string what = std::string(op_name(spec.op)) + " " + std::string(algorithm_name(spec.op, spec.algorithm));
  const std::string unit = metric == Metric::bytes ? "bytes" : "messages";
  std::ostringstream out;
  out << "size\t" << spec.nprocs << "\n";
  out << "panel\tpml\t" << unit << "\tPML monitoring (E + I): what " << what << " sends\n";
  out << "panel\tpmpi\t" << unit << "\tPMPI level: what the " << mpi_call_name(spec.op) << " call says\n";
  auto cells = [&](const char* panel, const EdgeTraffic& traffic) {
    std::map<std::pair<std::uint32_t, std::uint32_t>, std::uint64_t> sums;  // E and I together
    for (const auto& [edge, load] : traffic.edges()) {
      sums[{edge.src, edge.dst}] += metric == Metric::bytes ? load.bytes : load.messages;
    }
    for (const auto& [pair, value] : sums) {
      if (value != 0) out << "cell\t" << panel << "\t" << pair.first << "\t" << pair.second << "\t" << value << "\n";
    }
  };
  cells("pml", predict_collective(spec));
  cells("pmpi", api_level_traffic(spec));
  return out.str();
}

std::string collective_heatmap_title(const CollectiveSpec& spec) {
  std::string title = mpi_call_name(spec.op) + ", coll/tuned " + std::string(algorithm_name(spec.op, spec.algorithm)) +
                      ", " + std::to_string(spec.nprocs) + " processes";
  if (has_root(spec.op)) title += ", root " + std::to_string(spec.root);
  if (spec.op != CollectiveOp::barrier) title += ", " + std::to_string(spec.count * spec.type_size) + " B";
  if (spec.segment_size > 0) title += ", segments of " + std::to_string(spec.segment_size) + " B";
  return title;
}

void require_stencil_pairs(const std::string& input) {
  const AppResults results(input);
  const ArmPair arms = arms_of(results.configuration());
  if (arms.base != kArmOff || arms.other != kArmOn) {
    raise_error(Error::Kind::input, input,
                "results of arms " + arms.base + " and " + arms.other +
                    " (mpimon bench placement): mpimon plot placement draws them, once compacted with their case, "
                    "arm names and modelled costs (mpimon compact --set); mpimon show prints their table");
  }
  const auto pairs = app_pairs(results.launches());
  const bool any = std::any_of(pairs.begin(), pairs.end(), [](const AppPair& p) {
    return p.app.rfind("stencil", 0) == 0 && p.comm_share && std::isfinite(p.relative);
  });
  if (!any) {
    raise_error(Error::Kind::input, input,
                "no pairs of stencil launches with a communication share in these results: the only figure of an "
                "application results file is Fig. 3, which needs mpimon bench app --workload stencil "
                "--compute-sweep 0,1,4,16,64 (see mpimon show for this file's Table 1)");
  }
}

std::string simulated_figure_title(const std::string& input) {
  const AppResults results(input);
  auto configuration = results.configuration();
  for (const auto& m : simulated_mappings(configuration, results.launches())) {
    if (m.status != "ok") {
      raise_error(Error::Kind::input, input,
                  "mapping " + m.arm + " (" + m.name + ") was not simulated (" + m.status +
                      "): no figure; mpimon show prints this file's table");
    }
  }
  return "mpimon simulate, np " + configuration["np"] + ", " + configuration["simulator"];
}

}  // namespace mpimon::harness
