#pragma once
// Running child processes (mpirun and friends) from the CLI, with a timeout and captured output.

#include <chrono>
#include <cstdint>
#include <map>
#include <string>
#include <vector>

namespace mpimon::harness {

struct LaunchResult {
  int exit_code = -1;      ///< the child's exit status, or 128 + signal
  bool timed_out = false;  ///< killed after the timeout
  std::string output;      ///< stdout and stderr, interleaved
};

/// Where a child's standard output and error go: into LaunchResult::output (a harness reads it),
/// or to the caller's own (a user's application run by `mpimon record`: its output as it comes).
enum class ChildOutput { captured, inherited };

/// Runs argv (argv[0] looked up in PATH) in `directory` with extra environment variables; the
/// whole process group is killed when `timeout` expires. Its standard input is /dev/null either
/// way (mpirun would forward the caller's to rank 0). Throws mpimon::Error if it cannot start.
LaunchResult run_process(const std::vector<std::string>& argv, const std::map<std::string, std::string>& environment,
                         std::chrono::seconds timeout, const std::string& directory = "",
                         ChildOutput output = ChildOutput::captured);

/// The environment Open MPI's mpirun needs to run as root and to oversubscribe a small machine.
std::map<std::string, std::string> open_mpi_environment();

/// The first line of `LAUNCHER --version` (e.g. "mpirun (Open MPI) 4.1.4"), asked once per
/// launcher; "unknown (... --version failed)" when it cannot say.
std::string launcher_version_line(const std::string& launcher);
/// The release in such a line ("4.1.4"), or "" when it is not Open MPI's.
std::string open_mpi_release(const std::string& version_line);
/// "4.1" of "4.1.4": the series a behaviour of Open MPI is established for.
std::string release_series(const std::string& release);

/// The release of the Open MPI a launch with `launcher` runs ("4.1.4"): from the launcher's version
/// line when it is Open MPI's, else (srun, another wrapper) from `ompi_info --version` in PATH, the
/// library the ranks most likely link; "" when neither says.
std::string open_mpi_release_of(const std::string& launcher);

/// The frameworks ("coll", "osc", "pml") whose `monitoring` component the Open MPI of `launcher`
/// provides, as `ompi_info --parsable` lists them (asked once per launcher): the one next to Open
/// MPI's launcher, or for srun and other launchers the one in PATH; empty when it cannot tell.
std::vector<std::string> installed_monitoring_components(const std::string& launcher);

/// The kinds of MPI launcher the harness builds lines for, told apart by the program's base name.
enum class LauncherKind {
  open_mpi,  ///< mpirun, mpiexec, orterun: Open MPI's options (-np, --mca, -x, --bind-to)
  slurm,     ///< srun: Slurm's (-n, --cpu-bind, --export); MCA settings as OMPI_MCA_ variables
  other,     ///< anything else (a wrapper, another MPI's mpiexec): -np, the rest as variables
};

/// How one kind of launcher is told what the harness asks of a launch: the one place that knows
/// launcher kinds (docs/record.md, "Launchers"). Empty words: the kind has no such flag, and the
/// launch leaves it to the launcher's defaults and the user's --launcher words.
struct LauncherFlags {
  LauncherKind kind;
  const char* name;                        ///< for messages: "Open MPI's mpirun"
  std::vector<const char*> programs;       ///< base names of this kind
  const char* processes;                   ///< before the process count: -np, -n
  std::vector<const char*> bind_core;      ///< one process per core
  std::vector<const char*> bind_none;      ///< no binding
  std::vector<const char*> oversubscribe;  ///< more processes than slots (srun: the user's -O)
  /// How the ranks get a variable: "-x" (-x KEY=VALUE), "--export=ALL," (one srun option for all, so
  /// that srun itself never sees them: an LD_PRELOAD must not load into srun), "" (the launcher's
  /// own environment, which it passes on).
  const char* export_option;
};

/// The row of the table for a launcher given as one string ("srun --mpi=pmix", "/path/mpirun").
const LauncherFlags& launcher_flags(const std::string& launcher);
LauncherKind launcher_kind(const std::string& launcher);
/// "mpirun" or "mpiexec" (by base name): the launcher takes Open MPI's options.
bool is_open_mpi_launcher(const std::string& launcher);

/// Splits a launcher given as one string ("srun --mpi=pmix") into words.
std::vector<std::string> split_words(const std::string& text);

/// One MPI launch line, built in order: the launcher's words and its process count, launcher
/// options, MCA parameters, the program and its arguments, each in the launcher's own syntax
/// (LauncherFlags). MCA parameters go as `--mca K V` to Open MPI's launchers and as OMPI_MCA_K
/// variables to any other (srun passes the environment on).
class MpiLaunch {
 public:
  /// np 0: no process count, the launcher decides (all the slots it is given).
  MpiLaunch(const std::string& launcher, std::uint32_t np);
  [[nodiscard]] bool open_mpi() const { return flags_->kind == LauncherKind::open_mpi; }
  [[nodiscard]] const LauncherFlags& flags() const { return *flags_; }
  /// Words for the launcher itself; the caller knows which launcher it is (flags()).
  MpiLaunch& option(const std::vector<std::string>& words);
  /// Binds one process per core, or not at all, in the launcher's words (none for `other`).
  MpiLaunch& bind(bool to_cores);
  /// Allows more processes than slots where the launcher has a flag for it (Open MPI's).
  MpiLaunch& oversubscribe();
  MpiLaunch& mca(const std::string& key, const std::string& value);
  /// An environment variable of the MPI processes, as LauncherFlags::export_option says; a value
  /// holding a comma, which srun's --export cannot carry, goes into srun's own environment.
  MpiLaunch& environment(const std::string& key, const std::string& value);
  MpiLaunch& program(const std::string& path, const std::vector<std::string>& args = {});
  [[nodiscard]] const std::vector<std::string>& argv() const { return argv_; }
  /// The line as a user would type it, environment first.
  [[nodiscard]] std::string text() const;
  /// Runs the line; `directory` (if not empty) is the working directory of the launcher.
  [[nodiscard]] LaunchResult run(std::chrono::seconds timeout, const std::string& directory = "",
                                 ChildOutput output = ChildOutput::captured) const;

 private:
  std::vector<std::string> argv_;
  std::map<std::string, std::string> environment_;
  std::vector<std::string> exports_;  ///< KEY=VALUE for srun's --export, added before the program
  const LauncherFlags* flags_;
};

}  // namespace mpimon::harness
