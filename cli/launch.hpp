#pragma once
// Running child processes (mpirun and friends) from the CLI, with a timeout and captured output.

#include <chrono>
#include <map>
#include <string>
#include <vector>

namespace mpimon::cli {

struct LaunchResult {
  int exit_code = -1;      ///< the child's exit status, or 128 + signal
  bool timed_out = false;  ///< killed after the timeout
  std::string output;      ///< stdout and stderr, interleaved
};

/// Runs argv (argv[0] looked up in PATH) in `directory` with extra environment variables; the
/// whole process group is killed when `timeout` expires. Throws mpimon::Error if it cannot start.
LaunchResult run_process(const std::vector<std::string>& argv, const std::map<std::string, std::string>& environment,
                         std::chrono::seconds timeout, const std::string& directory = "");

/// The environment Open MPI's mpirun needs to run as root and to oversubscribe a small machine.
std::map<std::string, std::string> open_mpi_environment();

/// "mpirun" or "mpiexec" (by base name): the launcher takes Open MPI's options.
bool is_open_mpi_launcher(const std::string& launcher);

/// Splits a launcher given as one string ("srun --mpi=pmix") into words.
std::vector<std::string> split_words(const std::string& text);

}  // namespace mpimon::cli
