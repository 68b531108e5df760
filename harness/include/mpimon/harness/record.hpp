#pragma once
// `mpimon record`: one monitored run of a user's MPI application, its per-rank dumps checked and
// merged into one HDF5 file of matrices (docs/record.md). The monitoring's silent ways of writing
// nothing (a component list without `monitoring`, a directory the ranks cannot write) are caught
// before the run where they can be, and named after it where they cannot.

#include <cstdint>
#include <filesystem>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "mpimon/base/scratch.hpp"
#include "mpimon/harness/launch.hpp"
#include "mpimon/matrices/merge.hpp"

namespace mpimon::harness {

struct RecordSettings {
  std::string output;    ///< the merged HDF5 file
  std::uint32_t np = 0;  ///< 0: the launcher decides
  std::string launcher = "mpirun";
  std::uint32_t mode = 2;            ///< pml_monitoring_enable: 1 all as external, 2 internal told apart
  std::vector<std::string> mca;      ///< the user's KEY=VALUE, after the monitoring's
  std::string keep_dumps;            ///< "" : dumps in a private directory, removed after the merge
  std::vector<std::string> command;  ///< the application and its arguments
};

/// An MCA setting that switches a monitoring component off without a word from Open MPI.
struct MonitoringDisabler {
  std::string framework;  ///< pml, osc or coll
  std::string value;      ///< the component list, e.g. "ob1"
  std::string source;     ///< where it was set: "--mca pml=ob1", "OMPI_MCA_pml in the environment", a file
};

/// Whether an MCA component list selects no `monitoring` component: an inclusive list that does
/// not name it ("ob1"), or an exclusive one that does ("^monitoring").
bool list_excludes_monitoring(const std::string& list);

/// The pml, osc and coll lists that leave monitoring out, each from the place Open MPI takes it
/// (the first that sets it: the user's --mca, an OMPI_MCA_ variable of `environment`, then the
/// `key = value` lines of each of `parameter_files` in order).
std::vector<MonitoringDisabler> find_monitoring_disablers(const std::vector<std::string>& user_mca,
                                                          const std::map<std::string, std::string>& environment,
                                                          const std::vector<std::string>& parameter_files);

/// The MCA parameter files Open MPI reads for the user: OMPI_MCA_mca_base_param_files when set
/// (a colon-separated list), else ~/.openmpi/mca-params.conf.
std::vector<std::string> user_parameter_files(const std::map<std::string, std::string>& environment);

/// This process's environment as a map.
std::map<std::string, std::string> current_environment();

/// "0, 2-5, 7" for a sorted list of ranks.
std::string rank_ranges(const std::vector<std::uint32_t>& ranks);

/// Throws a usage Error on settings `record` cannot run with: no command, an --mca that is not
/// KEY=VALUE or sets one of the parameters `record` chooses, a --mode other than 1 or 2.
void check_record_settings(const RecordSettings& s);

/// A run ready to start: its launch line, the dump directory made for it, and the component
/// lists that will leave part of the monitoring out (osc or coll: those records will be empty).
struct RecordPlan {
  RecordSettings settings;
  MpiLaunch launch;
  std::filesystem::path directory;  ///< where the ranks write DUMP_NAME.RANK.prof
  std::string dump_name;            ///< the application's file name
  /// The private directory record made (none with --keep-dumps DIR): removed after the merge and
  /// on Ctrl-C, kept when the merge failed.
  std::shared_ptr<ScratchDirectory> private_directory;
  std::vector<MonitoringDisabler> partial;
};

/// Checks the settings, makes the dump directory (a private one next to the output file, where
/// the ranks of a cluster see it too; or --keep-dumps DIR) and builds the launch line. Throws
/// mpimon::Error when the run could record nothing: a pml list without monitoring (usage when it
/// comes from --mca, input when from the environment or a file), a dump directory or output
/// directory that cannot be written (input), dumps of an earlier run in --keep-dumps DIR (input).
RecordPlan prepare_record(const RecordSettings& s);

/// What a file written from a run says of the MPI that ran it (docs/matrices-format.md, Root).
struct RunProvenance {
  std::string open_mpi_version;                    ///< "4.1.4"; "" when the launcher is not Open MPI's
  std::vector<std::string> monitoring_components;  ///< "coll", "osc", "pml": installed and not switched off
};

/// The Open MPI release of `launcher` and the monitoring components a run with the user's
/// `user_mca` (and this process's environment and parameter files) loads.
RunProvenance run_provenance(const std::string& launcher, const std::vector<std::string>& user_mca);

/// The root attributes `open_mpi_version` and `monitoring_components` of a matrices file.
void add_provenance(MergeOptions& options, const RunProvenance& provenance);

struct RecordOutcome {
  LaunchResult launch;               ///< exit_code of the launcher; its output went to the caller's
  std::string dump_directory;        ///< where the dumps were written
  bool dumps_kept = false;           ///< in --keep-dumps DIR, or left because the merge failed
  std::uint32_t expected_ranks = 0;  ///< --np, else the size of MPI_COMM_WORLD the dumps record; 0 unknown
  std::vector<std::uint32_t> present_ranks, missing_ranks;
  std::optional<DumpSummary> merged;  ///< absent when no rank wrote its dump, or the merge failed
  std::string merge_error;            ///< why the dumps could not be merged ("" when they were)
};

/// Runs the application once, its output going straight to the caller's, then finds the dumps,
/// names the ranks without one, merges what there is into the output file and removes the
/// private dump directory (kept when the merge failed, so nothing recorded is lost).
RecordOutcome run_record(const RecordPlan& plan);

/// Why no rank wrote its dump, for a launch that ended: the causes Open MPI gives no sign of.
std::string no_dump_explanation(const RecordPlan& plan, const RecordOutcome& outcome);

}  // namespace mpimon::harness
