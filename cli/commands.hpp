#pragma once
// The mpimon subcommands. Each takes the arguments after its own name and returns an exit code.

#include <boost/program_options.hpp>

#include <cstdint>
#include <string>
#include <vector>

#include "mpimon/collective_model.hpp"

namespace mpimon::cli {

/// `name` is how the command was invoked ("mpimon-merge" or "mpimon merge"), for messages.
int merge_command(const std::string& name, const std::vector<std::string>& args);
int export_command(const std::string& name, const std::vector<std::string>& args);
int show_command(const std::string& name, const std::vector<std::string>& args);
int validate_command(const std::string& name, const std::vector<std::string>& args);
int pvars_command(const std::string& name, const std::vector<std::string>& args);
/// `mpimon bench overhead ...` (docs/overhead.md).
int bench_command(const std::string& name, const std::vector<std::string>& args);
/// `mpimon gate`: the overhead regression gate for CI (docs/gate.md).
int gate_command(const std::string& name, const std::vector<std::string>& args);
/// `mpimon bench app ...`: application overhead, RR-9038's Table 1 (docs/apps.md).
int bench_app_command(const std::string& name, const std::vector<std::string>& args);
/// `mpimon stats paired FILE.csv`: paired t-test and Wilcoxon test (docs/statistics.md).
int stats_command(const std::string& name, const std::vector<std::string>& args);

// Collective decomposition (docs/collectives.md).
/// `mpimon model collective ...`: the point-to-point traffic a forced coll/tuned algorithm makes.
int model_command(const std::string& name, const std::vector<std::string>& args);
/// `mpimon plot collective ...`: heatmaps of that traffic and of the PMPI-level view of the call.
int plot_command(const std::string& name, const std::vector<std::string>& args);
/// `mpimon validate collective ...` (args after "collective"): the model against Open MPI.
int validate_collective_command(const std::string& name, const std::vector<std::string>& args);
/// `mpimon validate`: `collective` goes to validate_collective_command, the rest to validate_command.
int validate_dispatch(const std::string& name, const std::vector<std::string>& args);

/// The options describing one collective call, shared by `model collective` and `validate collective`.
struct CollectiveOptions {
  std::string op, algorithm;
  std::uint32_t np = 0, root = 0, tree_fanout = 4, chain_fanout = 4, radix = 4;
  std::uint64_t count = 0, type_size = 1, segsize = 0;
  int mode = 2;
  bool ideal_monitoring = false;
};
void add_collective_options(boost::program_options::options_description& options, CollectiveOptions& values);
/// The spec the options describe; throws boost::program_options::error (a usage error) when
/// they name no valid call.
CollectiveSpec collective_spec(const CollectiveOptions& values, const boost::program_options::variables_map& vm);

}  // namespace mpimon::cli
