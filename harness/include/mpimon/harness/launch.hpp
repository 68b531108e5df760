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

/// The frameworks ("coll", "osc", "pml") whose `monitoring` component the Open MPI of `launcher`
/// provides, as `ompi_info --parsable` next to the launcher lists them (asked once per launcher);
/// empty when it cannot tell (no ompi_info, or not Open MPI).
std::vector<std::string> installed_monitoring_components(const std::string& launcher);

/// "mpirun" or "mpiexec" (by base name): the launcher takes Open MPI's options.
bool is_open_mpi_launcher(const std::string& launcher);

/// Splits a launcher given as one string ("srun --mpi=pmix") into words.
std::vector<std::string> split_words(const std::string& text);

/// One MPI launch line, built in order: the launcher's words and -np, launcher options, MCA
/// parameters, the program and its arguments. MCA parameters go as `--mca K V` to Open MPI's
/// launchers and as OMPI_MCA_K variables to any other (srun passes the environment on).
class MpiLaunch {
 public:
  /// np 0: no -np, the launcher decides (all the slots it is given).
  MpiLaunch(const std::string& launcher, std::uint32_t np);
  [[nodiscard]] bool open_mpi() const { return open_mpi_; }
  /// Words for the launcher itself (e.g. --bind-to core); the caller knows which launcher it is.
  MpiLaunch& option(const std::vector<std::string>& words);
  MpiLaunch& mca(const std::string& key, const std::string& value);
  /// An environment variable of the MPI processes: `-x KEY=VALUE` to Open MPI's launchers, the
  /// launcher's own environment for any other (srun passes it on).
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
  bool open_mpi_;
};

}  // namespace mpimon::harness
