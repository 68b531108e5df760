#pragma once
// `mpimon run`: an MPI command line of the user's, run as it is with what mpimon sets up for its
// processes; today libmpimon-reorder.so preloaded (--reorder: the topology constructors honour
// reorder=1, docs/reorder.md).

#include <map>
#include <string>
#include <vector>

namespace mpimon::harness {

struct RunSettings {
  std::vector<std::string> command;  ///< LAUNCHER ARGS... (mpirun, mpiexec, srun, or the program itself)
  bool reorder = false;
  /// For the reorder library (docs/reorder.md): MPIMON_REORDER_VERBOSE, _STATS, _TOPOLOGY, _TIME_LIMIT,
  /// _PLAN.
  bool verbose = false;
  std::string stats, topology, plan;
  double time_limit = 0;  ///< 0: the library's default
  std::string library;    ///< libmpimon-reorder.so; "" finds it next to this program
};

/// Where libmpimon-reorder.so is: $MPIMON_REORDER_LIBRARY, else next to the running program in the
/// build tree (../reorder/) or the install tree (../lib/); throws an input Error if none exists.
std::string find_reorder_library();

/// The command line and environment that give the launched processes the settings' variables, as
/// the launcher table (launch.hpp's LauncherFlags::export_option) says each kind takes them:
///   Open MPI's launchers (mpirun, mpiexec): `-x VAR=VALUE` after the launcher's name (an
///     `-x LD_PRELOAD=...` of the user's is kept, after the library);
///   srun: `--export=ALL,VAR=VALUE,...` after its name (srun itself never loads the library);
///   anything else: the variables in the environment of the command itself.
struct PreparedRun {
  std::vector<std::string> argv;
  std::map<std::string, std::string> environment;
  [[nodiscard]] std::string text() const;  ///< as a user would type it, environment first
};
/// Throws a usage Error on an empty command or options without --reorder, an input Error when a
/// file named by the options does not exist.
PreparedRun prepare_run(const RunSettings& s);

/// Replaces this process with the prepared command (its exit code is the command's); returns only
/// by throwing a system Error when it cannot be started.
[[noreturn]] void exec_run(const PreparedRun& run);

}  // namespace mpimon::harness
