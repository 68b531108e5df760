#pragma once
// The mpimon commands, one file each (named after the command).

#include <boost/program_options.hpp>

#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "mpimon/matrices/merge.hpp"
#include "mpimon/models/collective_model.hpp"

namespace mpimon::cli {

/// Every command takes how it was invoked (`name`: "mpimon-merge", "mpimon bench app"), for its
/// messages, and the arguments after its name; it returns the exit code (cli_support.hpp).
/// mpimon.cpp's table maps command lines onto them.
int merge_command(const std::string& name, const std::vector<std::string>& args);

/// The processes of an `mpimon-merge` launched by mpirun (merge_parallel/ provides them; cli
/// knows no MPI). `merge` is collective: rank 0's `list_files` names the inputs, every process
/// returns the same summaries or throws the same kind of error.
struct MergeProcesses {
  unsigned rank = 0;
  unsigned size = 1;
  std::function<std::vector<DumpSummary>(const std::function<std::vector<std::string>()>& list_files,
                                         const std::string& output, const MergeOptions& options,
                                         const MergeProgress& progress)>
      merge;
};
/// merge_command run by every process of a parallel merge: the summary says `merged by P processes`.
int parallel_merge_command(const std::string& name, const std::vector<std::string>& args,
                           const MergeProcesses& processes);
int show_command(const std::string& name, const std::vector<std::string>& args);
/// `mpimon record -- COMMAND`: one monitored run of an application, merged (docs/record.md).
int record_command(const std::string& name, const std::vector<std::string>& args);
int export_treematch_command(const std::string& name, const std::vector<std::string>& args);
int export_scotch_command(const std::string& name, const std::vector<std::string>& args);
int export_metis_command(const std::string& name, const std::vector<std::string>& args);
int export_mat_command(const std::string& name, const std::vector<std::string>& args);
/// `mpimon export pairs`: the directed pairs as CSV (docs/exports.md).
int export_pairs_command(const std::string& name, const std::vector<std::string>& args);
/// `mpimon validate`: the ledger-checked suite (docs/validation.md).
int validate_command(const std::string& name, const std::vector<std::string>& args);
/// `mpimon validate collective`: the collective model against Open MPI (docs/collectives.md).
int validate_collective_command(const std::string& name, const std::vector<std::string>& args);
/// `mpimon collect`: one matrices file from a running application (docs/collect.md).
int collect_command(const std::string& name, const std::vector<std::string>& args);
/// `mpimon run`: a user's MPI command line with libmpimon-reorder.so preloaded (docs/reorder.md).
int run_command_line(const std::string& name, const std::vector<std::string>& args);
int pvars_command(const std::string& name, const std::vector<std::string>& args);
/// `mpimon bench overhead` (docs/overhead.md).
int bench_overhead_command(const std::string& name, const std::vector<std::string>& args);
/// `mpimon bench app`: application overhead, RR-9038's Table 1 (docs/apps.md).
int bench_app_command(const std::string& name, const std::vector<std::string>& args);
/// `mpimon bench placement`: two rankfiles timed in launch pairs (docs/placement.md).
int bench_placement_command(const std::string& name, const std::vector<std::string>& args);
/// `mpimon gate`: the overhead regression gate for CI (docs/gate.md).
int gate_command(const std::string& name, const std::vector<std::string>& args);
/// `mpimon stats paired FILE.csv`: paired t-test and Wilcoxon test (docs/statistics.md).
int stats_paired_command(const std::string& name, const std::vector<std::string>& args);
/// `mpimon model collective`: the point-to-point traffic a forced coll/tuned algorithm makes.
int model_collective_command(const std::string& name, const std::vector<std::string>& args);
/// `mpimon compact INPUT -o OUT.h5`: a results file without raw samples (docs/plots.md).
int compact_command(const std::string& name, const std::vector<std::string>& args);
/// `mpimon plot RESULTS.h5`: the overhead and application figures (docs/plots.md).
int plot_results_command(const std::string& name, const std::vector<std::string>& args);
/// `mpimon report FILE... -o REPORT.html`: one self-contained HTML page (docs/report.md).
int report_command(const std::string& name, const std::vector<std::string>& args);
/// `mpimon plot collective`: heatmaps of a forced collective and of its PMPI-level view.
int plot_collective_command(const std::string& name, const std::vector<std::string>& args);

/// `mpimon place`: mappings onto a modelled tree and their modelled costs (docs/placement.md).
int place_command(const std::string& name, const std::vector<std::string>& args);

/// `mpimon probe`: the links of a machine measured for place's time model (docs/placement.md).
int probe_command(const std::string& name, const std::vector<std::string>& args);

/// `mpimon cluster up|status|launcher|hostfile|run|down`: an emulated cluster of network namespaces
/// (docs/cluster.md).
int cluster_up_command(const std::string& name, const std::vector<std::string>& args);
int cluster_status_command(const std::string& name, const std::vector<std::string>& args);
int cluster_launcher_command(const std::string& name, const std::vector<std::string>& args);
int cluster_hostfile_command(const std::string& name, const std::vector<std::string>& args);
int cluster_run_command(const std::string& name, const std::vector<std::string>& args);
int cluster_down_command(const std::string& name, const std::vector<std::string>& args);

/// `mpimon simulate`: mappings simulated with SimGrid's SMPI (docs/simulate.md).
int simulate_command(const std::string& name, const std::vector<std::string>& args);

/// `mpimon plot placement`: bars of `mpimon place --json` reports (docs/placement.md).
int plot_placement_command(const std::string& name, const std::vector<std::string>& args);

/// The options describing one collective call, shared by `model collective` and `validate collective`.
struct CollectiveOptions {
  std::string op, algorithm;
  std::uint32_t np = 0, root = 0, tree_fanout = 4, chain_fanout = 4, radix = 4;
  std::uint64_t count = 0, type_size = 1, segsize = 0;
  int mode = 2;
  bool ideal_monitoring = false;
  std::string open_mpi = "4.1";  ///< the series whose coll/tuned is modelled (parse_series)
};
void add_collective_options(boost::program_options::options_description& options, CollectiveOptions& values);
/// The spec the options describe; throws boost::program_options::error (a usage error) when
/// they name no valid call.
CollectiveSpec collective_spec(const CollectiveOptions& values, const boost::program_options::variables_map& vm);

}  // namespace mpimon::cli
